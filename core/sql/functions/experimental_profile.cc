#include "core/sql/functions/experimental_profile.h"

#include <memory>
#include <optional>
#include <string>

#include "core/sql/functions/stack_pprof_builder.h"

namespace fathom {
namespace {

constexpr char kFn[] = "EXPERIMENTAL_PROFILE";

struct State {
  std::optional<StackPprofBuilder> builder;
  bool failed = false;
};

State* StateOf(sqlite3_context* ctx, bool create) {
  auto** slot = static_cast<State**>(
      sqlite3_aggregate_context(ctx, create ? static_cast<int>(sizeof(State*)) : 0));
  if (!slot) return nullptr;
  if (!*slot && create) *slot = new State();
  return *slot;
}

// Upstream's names of SQLite value types in argument errors.
const char* TypeName(sqlite3_value* v) {
  switch (sqlite3_value_type(v)) {
    case SQLITE_NULL:
      return "NULL";
    case SQLITE_INTEGER:
      return "BOOL/INT/UINT/LONG";
    case SQLITE_FLOAT:
      return "FLOAT/DOUBLE";
    case SQLITE_TEXT:
      return "STRING";
    default:
      return "BYTES/PROTO";
  }
}

std::string ArgError(const char* arg, int pos, const char* expected, sqlite3_value* v) {
  return std::string(kFn) + ": argument " + arg + " at pos " + std::to_string(pos) +
         ": does not have expected type. Expected " + expected + " but found " + TypeName(v);
}

std::string Text(sqlite3_value* v) {
  return std::string(reinterpret_cast<const char*>(sqlite3_value_text(v)),
                     static_cast<size_t>(sqlite3_value_bytes(v)));
}

// The (type, unit) pairs of the first row; empty with *error set when one is
// not a string.
std::vector<std::pair<std::string, std::string>> SampleTypes(int argc, sqlite3_value** argv,
                                                             std::string* error) {
  if (argc == 1) return {{"samples", "count"}};
  std::vector<std::pair<std::string, std::string>> types;
  for (int i = 1; i + 2 < argc; i += 3) {
    for (int j : {i, i + 1}) {
      if (sqlite3_value_type(argv[j]) != SQLITE_TEXT) {
        *error = ArgError(j == i ? "sample_type" : "sample_units", j + 1, "STRING", argv[j]);
        return {};
      }
    }
    types.emplace_back(Text(argv[i]), Text(argv[i + 1]));
  }
  return types;
}

// Fills *values; false with *error set on a non-integer value.
bool Values(int argc, sqlite3_value** argv, std::vector<int64_t>* values, std::string* error) {
  if (argc == 1) {
    values->assign(1, 1);
    return true;
  }
  for (int i = 3; i < argc; i += 3) {
    if (sqlite3_value_type(argv[i]) != SQLITE_INTEGER) {
      *error = ArgError("sample_value", i + 1, "BOOL/INT/UINT/LONG", argv[i]);
      return false;
    }
    values->push_back(sqlite3_value_int64(argv[i]));
  }
  return true;
}

Status StepRow(State* state, sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (argc != 1 && (argc - 1) % 3 != 0)
    return ErrorStatus(std::string(kFn) + ": invalid number of arguments");
  if (sqlite3_value_type(argv[0]) != SQLITE_BLOB)
    return ErrorStatus(ArgError("stack", 1, "BYTES/PROTO", argv[0]));
  std::string error;
  if (!state->builder) {
    auto types = SampleTypes(argc, argv, &error);
    if (!error.empty()) return ErrorStatus(error);
    state->builder.emplace(static_cast<const TraceStorage*>(sqlite3_user_data(ctx)), types);
  }
  std::vector<int64_t> values;
  if (!Values(argc, argv, &values, &error)) return ErrorStatus(error);
  const char* blob = static_cast<const char*>(sqlite3_value_blob(argv[0]));
  auto stack =
      DecodeStack(std::string_view(blob, static_cast<size_t>(sqlite3_value_bytes(argv[0]))));
  if (!stack.ok())
    return ErrorStatus(std::string(kFn) +
                       ": argument stack at pos 1: failed to deserialize Stack proto");
  Status st = state->builder->AddSample(*stack, values);
  if (!st.ok()) return ErrorStatus(std::string(kFn) + ": " + st.message());
  return Status::Ok();
}

void Step(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  State* state = StateOf(ctx, true);
  if (!state) return sqlite3_result_error_nomem(ctx);
  if (state->failed) return;
  Status st = StepRow(state, ctx, argc, argv);
  if (st.ok()) return;
  state->failed = true;
  sqlite3_result_error(ctx, st.message().c_str(), -1);
}

void Final(sqlite3_context* ctx) {
  std::unique_ptr<State> state(StateOf(ctx, false));
  if (!state || state->failed || !state->builder) return sqlite3_result_null(ctx);
  const std::string out = state->builder->Finish();
  sqlite3_result_blob(ctx, out.data(), static_cast<int>(out.size()), SQLITE_TRANSIENT);
}

}  // namespace

Status RegisterExperimentalProfile(sqlite3* db, TraceStorage* storage) {
  if (sqlite3_create_function_v2(db, kFn, -1, SQLITE_UTF8, storage, nullptr, Step, Final,
                                 nullptr) != SQLITE_OK)
    return ErrorStatus(std::string("cannot register ") + kFn);
  return Status::Ok();
}

}  // namespace fathom
