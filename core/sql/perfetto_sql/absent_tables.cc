#include "core/sql/perfetto_sql/absent_tables.h"

#include <string>

namespace fathom::psql {
namespace {

struct AbsentTable {
  const char* name;
  const char* columns;  // after the `id` primary key, as upstream declares them
};

// Column names and types as trace_processor_shell v58.2's
// pragma_table_info() gives them.
constexpr AbsentTable kAbsentTables[] = {
    {"__intrinsic_v8_isolate",
     "upid INTEGER, internal_isolate_id INTEGER, embedded_blob_code_start_address INTEGER, "
     "embedded_blob_code_size INTEGER, code_range_base_address INTEGER, code_range_size INTEGER, "
     "shared_code_range INTEGER, embedded_blob_code_copy_start_address INTEGER"},
    {"__intrinsic_v8_js_script",
     "v8_isolate_id INTEGER, internal_script_id INTEGER, script_type TEXT, name TEXT, "
     "source TEXT"},
    {"__intrinsic_v8_wasm_script",
     "v8_isolate_id INTEGER, internal_script_id INTEGER, url TEXT, wire_bytes_base64 TEXT, "
     "source TEXT"},
    {"__intrinsic_v8_js_function",
     "name TEXT, v8_js_script_id INTEGER, is_toplevel INTEGER, kind TEXT, line INTEGER, "
     "col INTEGER"},
    {"__intrinsic_v8_js_code",
     "jit_code_id INTEGER, v8_js_function_id INTEGER, tier TEXT, bytecode_base64 TEXT"},
    {"__intrinsic_v8_internal_code",
     "jit_code_id INTEGER, v8_isolate_id INTEGER, function_name TEXT, code_type TEXT"},
    {"__intrinsic_v8_wasm_code",
     "jit_code_id INTEGER, v8_isolate_id INTEGER, v8_wasm_script_id INTEGER, "
     "function_name TEXT, tier TEXT, code_offset_in_module INTEGER"},
    {"__intrinsic_v8_regexp_code", "jit_code_id INTEGER, v8_isolate_id INTEGER, pattern TEXT"},
    {"__intrinsic_jit_code",
     "create_ts INTEGER, estimated_delete_ts INTEGER, utid INTEGER, start_address INTEGER, "
     "size INTEGER, function_name TEXT, native_code_base64 TEXT"},
    {"__intrinsic_jit_frame", "jit_code_id INTEGER, frame_id INTEGER"},
    {"__intrinsic_heap_graph_java_oome_details",
     "heap_graph_id INTEGER, allocation_size_bytes INTEGER, total_bytes_free INTEGER, "
     "free_bytes_until_oom INTEGER, error_msg TEXT"},
    {"__intrinsic_android_user_list", "type TEXT, android_user_id INTEGER"},
    {"__intrinsic_gpu_context", "context_id INTEGER, pid INTEGER, api TEXT"},
    {"__intrinsic_android_aflags",
     "ts INTEGER, package TEXT, name TEXT, flag_namespace TEXT, container TEXT, value TEXT, "
     "staged_value TEXT, permission TEXT, value_picked_from TEXT, storage_backend TEXT, "
     "type TEXT"},
    {"__intrinsic_android_network_packets",
     "iface TEXT, direction TEXT, packet_transport TEXT, packet_length INTEGER, "
     "packet_count INTEGER, socket_tag INTEGER, socket_tag_str TEXT, socket_uid INTEGER, "
     "local_port INTEGER, remote_port INTEGER, packet_icmp_type INTEGER, "
     "packet_icmp_code INTEGER, packet_tcp_flags INTEGER, packet_tcp_flags_str TEXT"},
    {"__intrinsic_track_event_callstacks",
     "slice_id INTEGER, track_id INTEGER, callsite_id INTEGER, end_callsite_id INTEGER, "
     "weight DOUBLE"},
};

// True when `name` is already something the connection can read from (a
// storage table is an eponymous virtual table, which sqlite_master omits).
bool Exists(sqlite3* db, const char* name) {
  sqlite3_stmt* s = nullptr;
  const std::string sql = std::string("SELECT 1 FROM ") + name + " LIMIT 0";
  const bool found = sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK;
  sqlite3_finalize(s);
  return found;
}

}  // namespace

Status RegisterAbsentTables(sqlite3* db) {
  for (const AbsentTable& t : kAbsentTables) {
    if (Exists(db, t.name)) continue;
    const std::string sql =
        std::string("CREATE TABLE ") + t.name + "(id INTEGER PRIMARY KEY, " + t.columns + ")";
    char* err = nullptr;
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
      std::string msg = std::string("cannot create ") + t.name + ": " + (err ? err : "");
      sqlite3_free(err);
      return ErrorStatus(msg);
    }
  }
  return Status::Ok();
}

}  // namespace fathom::psql
