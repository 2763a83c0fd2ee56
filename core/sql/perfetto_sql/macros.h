// PerfettoSQL macros: `CREATE PERFETTO MACRO m(x Expr) RETURNS Expr AS ...`
// defines token substitution; `m!(a)` in any later statement is replaced by
// the body with each `$x` replaced by the argument's tokens. Arguments are
// expanded first, then the substituted body is expanded again, so macros nest.
// The intrinsic macros the standard library uses (__intrinsic_stringify!,
// __intrinsic_token_apply!, ...) are built in.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/sql/perfetto_sql/statement.h"

namespace fathom::psql {

struct Macro {
  std::string name;
  std::vector<std::string> params;
  std::string body;
};

class MacroTable {
 public:
  // False when `m.name` exists and !replace.
  bool Define(Macro m, bool replace);
  const Macro* Find(std::string_view name) const;

 private:
  std::map<std::string, Macro, std::less<>> macros_;
};

// Writes `text` with every macro call expanded to `out`. An error's offset is
// that of the outermost call in `text` it arose in.
bool ExpandMacros(std::string_view text, const MacroTable& macros, std::string* out, SqlError* err);

}  // namespace fathom::psql
