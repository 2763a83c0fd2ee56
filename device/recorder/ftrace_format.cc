#include "ftrace_format.h"

#include <cstdlib>

namespace fathom::recorder {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// Value of "key:N;" inside a format line, or -1.
long long Attr(std::string_view line, std::string_view key) {
  size_t p = line.find(key);
  if (p == std::string_view::npos) return -1;
  return strtoll(std::string(line.substr(p + key.size())).c_str(), nullptr, 10);
}

// Parses "\tfield:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;". False when not a field line.
bool ParseFieldLine(std::string_view line, FormatField* out) {
  line = Trim(line);
  if (line.substr(0, 6) != "field:") return false;
  size_t semi = line.find(';');
  if (semi == std::string_view::npos) return false;
  std::string_view decl = Trim(line.substr(6, semi - 6));
  long long offset = Attr(line, "offset:"), size = Attr(line, "size:");
  if (offset < 0 || size < 0) return false;
  out->offset = static_cast<uint32_t>(offset);
  out->size = static_cast<uint32_t>(size);
  out->is_signed = Attr(line, "signed:") == 1;
  // The name is the last identifier, before an optional [N] array suffix; N may be an
  // expression with spaces ("char span[((32)-1) > 128 ? ...]"). In "__data_loc char[] name"
  // the brackets belong to the type.
  std::string_view array;
  std::string_view head = decl;
  size_t bracket = decl.find('[');
  bool data_loc = decl.substr(0, 10) == "__data_loc";
  if (bracket != std::string_view::npos && !data_loc && decl.back() == ']') {
    array = decl.substr(bracket);
    head = Trim(decl.substr(0, bracket));
  }
  size_t sp = head.find_last_of(" \t*");
  std::string_view name = sp == std::string_view::npos ? head : head.substr(sp + 1);
  std::string_view type = sp == std::string_view::npos ? "" : Trim(head.substr(0, sp + 1));
  out->name = std::string(name);
  out->type = std::string(type) + std::string(array);
  out->is_data_loc = out->type.find("__data_loc") != std::string::npos;
  out->is_pointer = !out->is_data_loc && out->type.find('*') != std::string::npos;
  // "char comm[16]", "char buf[]", and old kernels' "char buf" with size 0 (to the end).
  out->is_char_array = !out->is_data_loc && !out->is_pointer &&
                       out->type.find("char") != std::string::npos &&
                       (!array.empty() || out->size == 0);
  return true;
}

}  // namespace

const FormatField* EventFormat::Find(std::string_view field_name) const {
  for (const FormatField& f : fields)
    if (f.name == field_name) return &f;
  for (const FormatField& f : common_fields)
    if (f.name == field_name) return &f;
  return nullptr;
}

Result<PageHeaderLayout> ParseHeaderPage(std::string_view text) {
  PageHeaderLayout layout;
  bool have_ts = false, have_commit = false, have_data = false;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    FormatField f;
    if (!ParseFieldLine(line, &f)) continue;
    if (f.name == "timestamp") {
      layout.timestamp_offset = f.offset;
      layout.timestamp_size = f.size;
      have_ts = true;
    } else if (f.name == "commit") {
      layout.commit_offset = f.offset;
      layout.commit_size = f.size;
      have_commit = true;
    } else if (f.name == "data") {
      layout.data_offset = f.offset;
      layout.data_size = f.size;
      have_data = true;
    }
  }
  if (!have_ts || !have_commit || !have_data || layout.timestamp_size != 8 ||
      (layout.commit_size != 4 && layout.commit_size != 8))
    return ErrorStatus("unsupported events/header_page layout");
  return layout;
}

Result<EventHeaderLayout> ParseHeaderEvent(std::string_view text) {
  EventHeaderLayout layout;
  auto value_after = [&](std::string_view key, uint32_t* out) {
    size_t p = text.find(key);
    if (p == std::string_view::npos) return false;
    size_t eq = text.find("==", p);
    if (eq == std::string_view::npos) return false;
    *out = static_cast<uint32_t>(strtoul(std::string(text.substr(eq + 2, 8)).c_str(), nullptr, 10));
    return true;
  };
  if (text.find("type_len") == std::string_view::npos ||
      text.find("time_delta") == std::string_view::npos)
    return ErrorStatus("unsupported events/header_event layout");
  value_after("padding", &layout.padding);
  value_after("time_extend", &layout.time_extend);
  value_after("time_stamp", &layout.time_stamp);
  value_after("data max type_len", &layout.data_max);
  return layout;
}

Result<EventFormat> ParseEventFormat(std::string_view text, std::string_view group) {
  EventFormat ev;
  ev.group = std::string(group);
  bool have_id = false;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    std::string_view t = Trim(line);
    if (t.substr(0, 5) == "name:") {
      ev.name = std::string(Trim(t.substr(5)));
    } else if (t.substr(0, 3) == "ID:") {
      ev.id = static_cast<uint32_t>(strtoul(std::string(t.substr(3)).c_str(), nullptr, 10));
      have_id = true;
    } else if (t.substr(0, 12) == "print fmt:") {
      break;
    } else {
      FormatField f;
      if (!ParseFieldLine(line, &f)) continue;
      if (f.name.rfind("common_", 0) == 0)
        ev.common_fields.push_back(std::move(f));
      else
        ev.fields.push_back(std::move(f));
    }
  }
  if (ev.name.empty() || !have_id) return ErrorStatus("format file without name or ID");
  return ev;
}

}  // namespace fathom::recorder
