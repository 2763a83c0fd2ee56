#include "core/sql/sql_functions.h"

#include <algorithm>
#include <string_view>

#include "core/sql/functions/arg_set_json.h"
#include "core/sql/functions/base64.h"
#include "core/sql/functions/counter_intervals.h"
#include "core/sql/functions/demangle.h"
#include "core/sql/functions/dfs_weight_bounded.h"
#include "core/sql/functions/experimental_profile.h"
#include "core/sql/functions/flow_walk.h"
#include "core/sql/functions/graph_functions.h"
#include "core/sql/functions/graph_scan.h"
#include "core/sql/functions/interval_create.h"
#include "core/sql/functions/interval_intersect.h"
#include "core/sql/functions/last_non_null.h"
#include "core/sql/functions/layout_depth.h"
#include "core/sql/functions/metadata_functions.h"
#include "core/sql/functions/package_lookup.h"
#include "core/sql/functions/regex_functions.h"
#include "core/sql/functions/slice_ancestry.h"
#include "core/sql/functions/slice_layout_vtab.h"
#include "core/sql/functions/stack_functions.h"
#include "core/sql/functions/strip_hex.h"
#include "core/sql/functions/table_ptr.h"
#include "core/sql/functions/tree_partition.h"
#include "core/sql/functions/unhex.h"
#include "core/sql/functions/zstd_compress.h"
#include "core/sql/to_ftrace.h"

namespace fathom {
namespace {

// EXTRACT_ARG(arg_set_id, key): the value of `key` in that arg set, typed as
// stored (int, real or string), NULL when absent.
void ExtractArg(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  auto* storage = static_cast<TraceStorage*>(sqlite3_user_data(ctx));
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL || sqlite3_value_type(argv[1]) != SQLITE_TEXT) {
    sqlite3_result_null(ctx);
    return;
  }
  int64_t set = sqlite3_value_int64(argv[0]);
  storage->args.EnsureMaterialized();  // deferred rows may intern new strings
  std::string_view key(reinterpret_cast<const char*>(sqlite3_value_text(argv[1])),
                       static_cast<size_t>(sqlite3_value_bytes(argv[1])));
  StringId key_id = storage->strings.Find(key);
  if (key_id == kNullStringId) {
    sqlite3_result_null(ctx);
    return;
  }
  const ArgsTable& args = storage->args;
  const auto& sets = args.arg_set_id.data();
  auto lo = std::lower_bound(sets.begin(), sets.end(), static_cast<uint32_t>(set));
  for (auto it = lo; it != sets.end() && *it == set; ++it) {
    uint32_t row = static_cast<uint32_t>(it - sets.begin());
    if (args.key[row] != key_id) continue;
    if (auto iv = args.int_value.Get(row)) {
      sqlite3_result_int64(ctx, *iv);
    } else if (auto rv = args.real_value.Get(row)) {
      sqlite3_result_double(ctx, *rv);
    } else if (args.string_value[row] != kNullStringId) {
      std::string_view s = storage->GetString(args.string_value[row]);
      sqlite3_result_text(ctx, s.data(), static_cast<int>(s.size()), SQLITE_STATIC);
    } else {
      sqlite3_result_null(ctx);
    }
    return;
  }
  sqlite3_result_null(ctx);
}

}  // namespace

Status RegisterSqlFunctions(sqlite3* db, TraceStorage* storage) {
  for (const char* name : {"EXTRACT_ARG", "extract_arg"}) {
    int rc = sqlite3_create_function_v2(db, name, 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, storage,
                                        ExtractArg, nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) return ErrorStatus(std::string("cannot register ") + name);
  }
  for (Status st : {RegisterToFtraceFunction(db, storage),
                    RegisterRegexFunctions(db),
                    RegisterUnhexFunction(db),
                    RegisterLastNonNullFunction(db),
                    RegisterLayoutDepthFunction(db),
                    RegisterSliceAncestryFunctions(db, storage),
                    RegisterArgSetToJsonFunction(db, storage),
                    RegisterMetadataFunctions(db, storage),
                    RegisterSliceLayoutFunction(db, storage),
                    RegisterTablePtr(db),
                    RegisterIntervalIntersect(db),
                    RegisterIntervalCreate(db),
                    RegisterCounterIntervals(db),
                    RegisterStripHexFunction(db),
                    RegisterGraphFunctions(db),
                    RegisterGraphScan(db),
                    RegisterBase64Functions(db),
                    RegisterTreePartition(db),
                    RegisterDemangleFunction(db),
                    RegisterZstdCompressFunction(db),
                    RegisterDfsWeightBounded(db),
                    RegisterPackageLookupFunction(db, storage),
                    RegisterFlowWalk(db, storage),
                    RegisterStackFunctions(db, storage),
                    RegisterExperimentalProfile(db, storage)}) {
    if (!st.ok()) return st;
  }
  return Status::Ok();
}

}  // namespace fathom
