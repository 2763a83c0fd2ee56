#include "core/sql/functions/metadata_functions.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fathom {
namespace {

// The scope id a row has in `column` (nullopt for NULL or no such column).
std::optional<int64_t> ScopeOf(const ColumnBase* column, uint32_t row) {
  if (!column || column->IsNull(row)) return std::nullopt;
  return column->GetInt(row);
}

// An integer argument, text spelling an integer included (SQL affinity).
std::optional<int64_t> IntegerArg(sqlite3_value* v) {
  if (sqlite3_value_numeric_type(v) != SQLITE_INTEGER) return std::nullopt;
  return sqlite3_value_int64(v);
}

enum class Scope { kPrimary, kMachine, kTrace };

// Finds the first row named `name` whose scope matches and reports its value.
void ReportMetadata(sqlite3_context* ctx, sqlite3_value* name_arg, Scope scope,
                    std::optional<int64_t> scope_id) {
  const auto* storage = static_cast<const TraceStorage*>(sqlite3_user_data(ctx));
  if (sqlite3_value_type(name_arg) != SQLITE_TEXT) return sqlite3_result_null(ctx);
  const std::string_view name(reinterpret_cast<const char*>(sqlite3_value_text(name_arg)),
                              static_cast<size_t>(sqlite3_value_bytes(name_arg)));
  const StringId name_id = storage->strings.Find(name);
  if (name_id == kNullStringId) return sqlite3_result_null(ctx);
  const MetadataTable& md = storage->metadata;
  const ColumnBase* machine_column = md.FindColumn("machine_id");
  const ColumnBase* trace_column = md.FindColumn("trace_id");
  for (uint32_t row = 0; row < md.row_count(); ++row) {
    if (md.name[row] != name_id) continue;
    const auto machine = ScopeOf(machine_column, row);
    const auto trace = ScopeOf(trace_column, row);
    bool match = false;
    switch (scope) {
      case Scope::kPrimary:  // the first machine and trace, or no scope at all
        match = machine.value_or(0) == 0 && trace.value_or(0) == 0;
        break;
      case Scope::kMachine:
        match = machine && machine == scope_id;
        break;
      case Scope::kTrace:
        match = trace && trace == scope_id;
        break;
    }
    if (!match) continue;
    if (auto iv = md.int_value.Get(row)) return sqlite3_result_int64(ctx, *iv);
    if (md.str_value[row] == kNullStringId) return sqlite3_result_null(ctx);
    const std::string_view s = storage->GetString(md.str_value[row]);
    return sqlite3_result_text(ctx, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
  }
  sqlite3_result_null(ctx);
}

void ExtractMetadata(sqlite3_context* ctx, int, sqlite3_value** argv) {
  ReportMetadata(ctx, argv[0], Scope::kPrimary, std::nullopt);
}

void ExtractMetadataForMachine(sqlite3_context* ctx, int, sqlite3_value** argv) {
  auto machine = IntegerArg(argv[0]);
  if (!machine) return sqlite3_result_null(ctx);
  ReportMetadata(ctx, argv[1], Scope::kMachine, machine);
}

void ExtractMetadataForTrace(sqlite3_context* ctx, int, sqlite3_value** argv) {
  auto trace = IntegerArg(argv[0]);
  if (!trace) return sqlite3_result_null(ctx);
  ReportMetadata(ctx, argv[1], Scope::kTrace, trace);
}

}  // namespace

Status RegisterMetadataFunctions(sqlite3* db, TraceStorage* storage) {
  struct Fn {
    const char* name;
    int argc;
    void (*fn)(sqlite3_context*, int, sqlite3_value**);
  };
  for (const Fn& f : {Fn{"extract_metadata", 1, ExtractMetadata},
                      Fn{"extract_metadata_for_machine", 2, ExtractMetadataForMachine},
                      Fn{"extract_metadata_for_trace", 2, ExtractMetadataForTrace}}) {
    int rc = sqlite3_create_function_v2(db, f.name, f.argc, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                                        storage, f.fn, nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) return ErrorStatus(std::string("cannot register ") + f.name);
  }
  return Status::Ok();
}

}  // namespace fathom
