#include "core/sql/functions/arg_set_json.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <optional>
#include <string_view>
#include <vector>

#include "core/sql/functions/utf32_text.h"

namespace fathom {
namespace {

constexpr uint32_t kNoRow = ~uint32_t{0};

// One node of the nested view of an arg set: an object (named members in
// first-seen order), an array (members by index) or a leaf (an args row).
struct JsonNode {
  enum Kind { kObject, kArray, kLeaf } kind = kObject;
  std::string_view name;          // member name in the parent object
  uint32_t row = kNoRow;          // args row of a leaf
  std::vector<uint32_t> members;  // node indices; array slots may be 0 (null)
};

class JsonTree {
 public:
  JsonTree() { nodes_.push_back({}); }  // the root object

  // Adds the args row under `key`, creating the objects and arrays on its path.
  void Add(std::string_view key, uint32_t row) {
    uint32_t node = 0;
    size_t i = 0;
    while (i < key.size()) {
      if (auto index = ArrayIndexAt(key, i)) {
        node = ArraySlot(node, *index);
        i = key.find(']', i) + 1;
        if (i < key.size() && key[i] == '.') ++i;
      } else {
        size_t end = key.find_first_of(".[", i + 1);
        if (end == std::string_view::npos) end = key.size();
        node = Member(node, key.substr(i, end - i));
        i = end < key.size() && key[end] == '.' ? end + 1 : end;
      }
    }
    nodes_[node].kind = JsonNode::kLeaf;
    nodes_[node].row = row;
  }

  const JsonNode& node(uint32_t i) const { return nodes_[i]; }

 private:
  // The index of a "[digits]" at key[i], nullopt when key[i] starts no index.
  static std::optional<size_t> ArrayIndexAt(std::string_view key, size_t i) {
    if (key[i] != '[') return std::nullopt;
    const size_t close = key.find(']', i);
    if (close == std::string_view::npos || close == i + 1 || close - i > 10) return std::nullopt;
    size_t index = 0;
    for (size_t k = i + 1; k < close; ++k) {
      if (key[k] < '0' || key[k] > '9') return std::nullopt;
      index = index * 10 + static_cast<size_t>(key[k] - '0');
    }
    return index;
  }
  uint32_t NewNode(std::string_view name) {
    nodes_.push_back({});
    nodes_.back().name = name;
    return static_cast<uint32_t>(nodes_.size() - 1);
  }
  uint32_t Member(uint32_t parent, std::string_view name) {
    nodes_[parent].kind = JsonNode::kObject;
    for (uint32_t m : nodes_[parent].members)
      if (nodes_[m].name == name) return m;
    uint32_t child = NewNode(name);
    nodes_[parent].members.push_back(child);
    return child;
  }
  uint32_t ArraySlot(uint32_t parent, size_t index) {
    if (nodes_[parent].kind != JsonNode::kArray) {
      nodes_[parent].kind = JsonNode::kArray;
      nodes_[parent].members.clear();
    }
    // Indices come from the keys; one far past the args there are cannot be
    // dense, so it is appended rather than padded with nulls.
    if (index > nodes_.size() + 1024) index = nodes_[parent].members.size();
    if (nodes_[parent].members.size() <= index) nodes_[parent].members.resize(index + 1, 0);
    if (nodes_[parent].members[index] == 0) {
      uint32_t child = NewNode({});
      nodes_[parent].members[index] = child;
    }
    return nodes_[parent].members[index];
  }
  std::vector<JsonNode> nodes_;
};

// A JSON string literal: quotes, backslashes and control characters escaped,
// non-ASCII written as \uXXXX (surrogate pairs past the BMP).
void AppendJsonString(std::string_view s, std::string* out) {
  out->push_back('"');
  char buf[16];
  for (wchar_t wc : Utf8ToWide(s)) {
    const auto cp = static_cast<uint32_t>(wc);
    switch (cp) {
      case '"':
        out->append("\\\"");
        continue;
      case '\\':
        out->append("\\\\");
        continue;
      case '\n':
        out->append("\\n");
        continue;
      case '\r':
        out->append("\\r");
        continue;
      case '\t':
        out->append("\\t");
        continue;
      case '\b':
        out->append("\\b");
        continue;
      case '\f':
        out->append("\\f");
        continue;
      default:
        break;
    }
    if (cp >= 0x20 && cp < 0x80) {
      out->push_back(static_cast<char>(cp));
    } else if (cp < 0x10000) {
      snprintf(buf, sizeof buf, "\\u%04x", cp);
      out->append(buf);
    } else {
      const uint32_t v = cp - 0x10000;
      snprintf(buf, sizeof buf, "\\u%04x\\u%04x", 0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF));
      out->append(buf);
    }
  }
  out->push_back('"');
}

void AppendLeaf(const TraceStorage& s, uint32_t row, std::string* out) {
  const ArgsTable& args = s.args;
  const std::string_view type = s.GetString(args.value_type[row]);
  char buf[40];
  if (auto iv = args.int_value.Get(row)) {
    if (type == "bool") {
      out->append(*iv ? "true" : "false");
    } else if (type == "pointer") {
      AppendJsonString(args.display_value.ComputedText(row, s.strings), out);
    } else if (type == "uint") {
      snprintf(buf, sizeof buf, "%" PRIu64, static_cast<uint64_t>(*iv));
      out->append(buf);
    } else {
      snprintf(buf, sizeof buf, "%" PRId64, *iv);
      out->append(buf);
    }
  } else if (auto rv = args.real_value.Get(row)) {
    snprintf(buf, sizeof buf, "%.16g", *rv);
    out->append(buf);
  } else if (args.string_value[row] != kNullStringId) {
    AppendJsonString(s.GetString(args.string_value[row]), out);
  } else {
    out->append("null");
  }
}

void AppendNode(const TraceStorage& s, const JsonTree& tree, uint32_t index, std::string* out) {
  const JsonNode& n = tree.node(index);
  if (n.kind == JsonNode::kLeaf) return AppendLeaf(s, n.row, out);
  const bool array = n.kind == JsonNode::kArray;
  out->push_back(array ? '[' : '{');
  for (size_t i = 0; i < n.members.size(); ++i) {
    if (i) out->push_back(',');
    const uint32_t m = n.members[i];
    if (!array) {
      AppendJsonString(tree.node(m).name, out);
      out->push_back(':');
    }
    if (m == 0) {
      out->append("null");  // an array index no arg filled
    } else {
      AppendNode(s, tree, m, out);
    }
  }
  out->push_back(array ? ']' : '}');
}

void ArgSetToJsonFn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  const int type = sqlite3_value_type(argv[0]);
  if (type == SQLITE_NULL) return sqlite3_result_null(ctx);
  if (type != SQLITE_INTEGER)
    return sqlite3_result_error(
        ctx, "__intrinsic_arg_set_to_json: the argument must be an arg set id", -1);
  const int64_t set = sqlite3_value_int64(argv[0]);
  const auto* storage = static_cast<const TraceStorage*>(sqlite3_user_data(ctx));
  const bool in_range = set >= 0 && set <= static_cast<int64_t>(UINT32_MAX);
  const std::string json = in_range ? ArgSetToJson(*storage, static_cast<uint32_t>(set)) : "{}";
  sqlite3_result_text(ctx, json.data(), static_cast<int>(json.size()), SQLITE_TRANSIENT);
}

}  // namespace

std::string ArgSetToJson(const TraceStorage& storage, uint32_t arg_set_id) {
  const ArgsTable& args = storage.args;
  const auto& sets = args.arg_set_id.data();  // writes deferred sets first
  JsonTree tree;
  auto lo = std::lower_bound(sets.begin(), sets.end(), arg_set_id);
  for (auto it = lo; it != sets.end() && *it == arg_set_id; ++it) {
    const auto row = static_cast<uint32_t>(it - sets.begin());
    const std::string_view key = storage.GetString(args.key[row]);
    if (!key.empty()) tree.Add(key, row);
  }
  std::string out;
  AppendNode(storage, tree, 0, &out);
  return out;
}

Status RegisterArgSetToJsonFunction(sqlite3* db, TraceStorage* storage) {
  int rc = sqlite3_create_function_v2(db, "__intrinsic_arg_set_to_json", 1,
                                      SQLITE_UTF8 | SQLITE_DETERMINISTIC, storage, ArgSetToJsonFn,
                                      nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return ErrorStatus("cannot register __intrinsic_arg_set_to_json");
  return Status::Ok();
}

}  // namespace fathom
