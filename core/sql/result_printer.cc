#include "core/sql/result_printer.h"

#include <cinttypes>
#include <vector>

namespace fathom {
namespace {

std::string CsvCell(const SqlValue& v) {
  char buf[64];
  switch (v.type) {
    case SqlValue::kNull:
      return "\"[NULL]\"";
    case SqlValue::kInt:
      snprintf(buf, sizeof buf, "%" PRId64, v.i);
      return buf;
    case SqlValue::kDouble: {
      // %f of a huge double is long: up to 309 integer digits, a sign, a point and 6
      // decimals.
      char wide[400];
      snprintf(wide, sizeof wide, "%f", v.d);
      return wide;
    }
    case SqlValue::kString: {
      // Appended, not `"\"" + std::string(...)`: GCC 12 warns (-Wrestrict, a false
      // positive) on that form.
      std::string quoted;
      quoted.reserve(v.s.size() + 2);
      quoted += '"';
      quoted += v.s;
      quoted += '"';
      return quoted;
    }
    case SqlValue::kBlob:
      return "\"<raw bytes>\"";
  }
  return "";
}

std::string PlainCell(const SqlValue& v) {
  if (v.type == SqlValue::kNull) return "[NULL]";
  if (v.type == SqlValue::kString) return std::string(v.s);
  if (v.type == SqlValue::kBlob) return "<raw bytes>";
  return CsvCell(v);
}

std::string JsonEscape(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char b[8];
          snprintf(b, sizeof b, "\\u%04x", c);
          out += b;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string JsonCell(const SqlValue& v) {
  char buf[64];
  switch (v.type) {
    case SqlValue::kNull:
      return "null";
    case SqlValue::kInt:
      snprintf(buf, sizeof buf, "%" PRId64, v.i);
      return buf;
    case SqlValue::kDouble:
      snprintf(buf, sizeof buf, "%.17g", v.d);
      return buf;
    case SqlValue::kString:
      return JsonEscape(v.s);
    case SqlValue::kBlob:
      return "null";
  }
  return "null";
}

}  // namespace

Status PrintResults(QueryIterator* it, ResultFormat format, std::string* out) {
  bool first_set = true;
  if (format == ResultFormat::kJson) *out += "[";
  while (it->NextResultSet()) {
    int n = it->column_count();
    std::vector<std::string> names;
    for (int i = 0; i < n; ++i) names.push_back(it->column_name(i));
    // As upstream's shell: a result set whose one column is named exactly
    // suppress_query_output is run but not printed.
    if (n == 1 && names[0] == "suppress_query_output") {
      while (it->NextRow()) {
      }
      continue;
    }
    switch (format) {
      case ResultFormat::kCsv: {
        if (!first_set) *out += "\n";
        for (int i = 0; i < n; ++i) *out += (i ? ",\"" : "\"") + names[i] + "\"";
        *out += "\n";
        while (it->NextRow()) {
          for (int i = 0; i < n; ++i) {
            if (i) *out += ",";
            *out += CsvCell(it->Get(i));
          }
          *out += "\n";
        }
        break;
      }
      case ResultFormat::kJson: {
        if (!first_set) *out += ",";
        *out += "\n[";
        bool first_row = true;
        while (it->NextRow()) {
          *out += first_row ? "\n  {" : ",\n  {";
          first_row = false;
          for (int i = 0; i < n; ++i) {
            if (i) *out += ", ";
            *out += JsonEscape(names[i]) + ": " + JsonCell(it->Get(i));
          }
          *out += "}";
        }
        *out += "\n]";
        break;
      }
      case ResultFormat::kTable: {
        std::vector<std::vector<std::string>> rows;
        std::vector<size_t> width(n);
        for (int i = 0; i < n; ++i) width[i] = names[i].size();
        while (it->NextRow()) {
          rows.emplace_back();
          for (int i = 0; i < n; ++i) {
            rows.back().push_back(PlainCell(it->Get(i)));
            width[i] = std::max(width[i], rows.back().back().size());
          }
        }
        if (!first_set) *out += "\n";
        auto line = [&](const std::vector<std::string>& cells) {
          for (int i = 0; i < n; ++i) {
            std::string c = cells[i];
            c.resize(width[i], ' ');
            *out += (i ? " | " : "") + c;
          }
          *out += "\n";
        };
        line(names);
        for (int i = 0; i < n; ++i) *out += (i ? "-+-" : "") + std::string(width[i], '-');
        *out += "\n";
        for (const auto& r : rows) line(r);
        *out += '(';  // appended piece by piece: see CsvCell
        *out += std::to_string(rows.size());
        *out += rows.size() == 1 ? " row)\n" : " rows)\n";
        break;
      }
    }
    first_set = false;
  }
  if (format == ResultFormat::kJson) *out += "\n]\n";
  return it->status();
}

Result<std::vector<std::vector<std::string>>> RowsAsText(QueryIterator* it) {
  std::vector<std::vector<std::string>> rows;
  if (!it->NextResultSet()) {
    if (!it->status().ok()) return it->status();
    return rows;
  }
  while (it->NextRow()) {
    std::vector<std::string> row;
    row.reserve(static_cast<size_t>(it->column_count()));
    for (int i = 0; i < it->column_count(); ++i) {
      const SqlValue v = it->Get(i);
      row.push_back(v.type == SqlValue::kInt      ? std::to_string(v.i)
                    : v.type == SqlValue::kDouble ? std::to_string(v.d)
                    : v.type == SqlValue::kString ? std::string(v.s)
                                                  : std::string());
    }
    rows.push_back(std::move(row));
  }
  if (!it->status().ok()) return it->status();
  return rows;
}

}  // namespace fathom
