// Exposes a column Table to SQLite as an eponymous virtual table. Equality and
// range constraints on the id column and on sorted columns become row ranges
// (binary search); equality on other integer and string columns is looked up
// in an index built on first use (table_eq_index.h), other filters are
// checked in C++ before SQLite sees the row. SQLite re-checks every
// constraint (omit = 0), so the push-down can only make queries faster, never
// change their answer.
#pragma once

#include <sqlite3.h>

#include <map>
#include <memory>
#include <string>

#include "base/status.h"
#include "core/storage/trace_storage.h"

namespace fathom {

// Serves `table` to SQL as `name` (its own name when empty).
Status RegisterTableVtab(sqlite3* db, TraceStorage* storage, Table* table,
                         const std::string& name = "");

class EqIndexCache;

// Tables made while queries run (CREATE PERFETTO TABLE's results), served by
// the same code under a module that is not eponymous:
// `CREATE VIRTUAL TABLE name USING __fathom_runtime_table` connects to the
// table put here under `name` (any case), so it is in sqlite_master like a
// table of SQLite's own, and DROP TABLE releases it. Rowids start at 1, as a
// SQLite table's do (`_auto_id` is rowid - 1).
inline constexpr const char* kRuntimeTableModule = "__fathom_runtime_table";

class RuntimeTableRegistry {
 public:
  struct Entry {
    std::shared_ptr<Table> table;
    std::shared_ptr<const StringPool> strings;  // set by Put
    std::string declaration;                    // CREATE TABLE x(...) for sqlite3_declare_vtab
    std::shared_ptr<EqIndexCache> indexes;
  };
  void Put(const std::string& name, Entry e);
  const Entry* Find(const std::string& name) const;
  void Remove(const Table* table);
  // The strings of every run-time table's text columns.
  StringPool* strings() { return strings_.get(); }

 private:
  std::shared_ptr<StringPool> strings_ = std::make_shared<StringPool>();
  std::map<std::string, Entry> entries_;  // by lower-case name
};

Status RegisterRuntimeTableModule(sqlite3* db, RuntimeTableRegistry* registry);

}  // namespace fathom
