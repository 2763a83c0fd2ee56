#include "core/sql/functions/stack_functions.h"

#include <cstring>
#include <string>

#include "core/sql/functions/stack_blob.h"

namespace fathom {
namespace {

void ResultBlob(sqlite3_context* ctx, const std::string& blob) {
  if (blob.empty()) return sqlite3_result_null(ctx);
  sqlite3_result_blob(ctx, blob.data(), static_cast<int>(blob.size()), SQLITE_TRANSIENT);
}

void Error(sqlite3_context* ctx, const std::string& msg) {
  sqlite3_result_error(ctx, msg.c_str(), -1);
}

void CatStacks(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  std::string out;
  for (int i = argc - 1; i >= 0; --i) {
    switch (sqlite3_value_type(argv[i])) {
      case SQLITE_NULL:
        break;
      case SQLITE_TEXT: {
        // Read as a C string: text holding a NUL names the frame up to it.
        const char* s = reinterpret_cast<const char*>(sqlite3_value_text(argv[i]));
        out += EncodeStackNameEntry(std::string_view(s, std::strlen(s)));
        break;
      }
      case SQLITE_BLOB: {
        const char* b = static_cast<const char*>(sqlite3_value_blob(argv[i]));
        out.append(b, static_cast<size_t>(sqlite3_value_bytes(argv[i])));
        break;
      }
      default:
        return Error(ctx,
                     "CAT_STACKS: entry " + std::to_string(i) + " must be BLOB, STRING, or NULL");
    }
  }
  ResultBlob(ctx, out);
}

// Reads argv[0] as an id of `table`; false (with the error set) when it is
// not one. `*is_null` when the argument is NULL.
bool ReadId(sqlite3_context* ctx, sqlite3_value* v, const char* fn, const char* arg, uint32_t rows,
            int64_t* id, bool* is_null) {
  *is_null = sqlite3_value_type(v) == SQLITE_NULL;
  if (*is_null) return true;
  if (sqlite3_value_type(v) != SQLITE_INTEGER) {
    Error(ctx, std::string(fn) + ": " + arg + " must be integer");
    return false;
  }
  *id = sqlite3_value_int64(v);
  if (*id < 0 || *id >= rows) {
    Error(ctx, std::string(fn) + ": " + arg + " does not exist: " + std::to_string(*id));
    return false;
  }
  return true;
}

void FromCallsite(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  static constexpr char kFn[] = "STACK_FROM_STACK_PROFILE_CALLSITE";
  auto* storage = static_cast<TraceStorage*>(sqlite3_user_data(ctx));
  int64_t id = 0;
  bool is_null = false;
  if (!ReadId(ctx, argv[0], kFn, "callsite_id", storage->profile.stack_profile_callsite.row_count(),
              &id, &is_null))
    return;
  if (is_null) return sqlite3_result_null(ctx);
  bool annotate = false;
  if (argc > 1) {
    if (sqlite3_value_type(argv[1]) == SQLITE_NULL) return sqlite3_result_null(ctx);
    if (sqlite3_value_type(argv[1]) != SQLITE_INTEGER)
      return Error(ctx, std::string(kFn) + ": annotate must be integer");
    annotate = sqlite3_value_int64(argv[1]) != 0;
  }
  ResultBlob(ctx,
             EncodeStackEntry(annotate ? StackEntry::kAnnotatedCallsite : StackEntry::kCallsite,
                              static_cast<uint64_t>(id)));
}

void FromFrame(sqlite3_context* ctx, int, sqlite3_value** argv) {
  auto* storage = static_cast<TraceStorage*>(sqlite3_user_data(ctx));
  int64_t id = 0;
  bool is_null = false;
  if (!ReadId(ctx, argv[0], "STACK_FROM_STACK_PROFILE_FRAME", "frame_id",
              storage->profile.stack_profile_frame.row_count(), &id, &is_null))
    return;
  if (is_null) return sqlite3_result_null(ctx);
  ResultBlob(ctx, EncodeStackEntry(StackEntry::kFrame, static_cast<uint64_t>(id)));
}

}  // namespace

Status RegisterStackFunctions(sqlite3* db, TraceStorage* storage) {
  struct Fn {
    const char* name;
    int argc;
    void (*fn)(sqlite3_context*, int, sqlite3_value**);
  };
  for (const Fn& f :
       {Fn{"CAT_STACKS", -1, CatStacks}, Fn{"STACK_FROM_STACK_PROFILE_CALLSITE", 1, FromCallsite},
        Fn{"STACK_FROM_STACK_PROFILE_CALLSITE", 2, FromCallsite},
        Fn{"STACK_FROM_STACK_PROFILE_FRAME", 1, FromFrame}}) {
    if (sqlite3_create_function_v2(db, f.name, f.argc, SQLITE_UTF8 | SQLITE_DETERMINISTIC, storage,
                                   f.fn, nullptr, nullptr, nullptr) != SQLITE_OK)
      return ErrorStatus(std::string("cannot register ") + f.name);
  }
  return Status::Ok();
}

}  // namespace fathom
