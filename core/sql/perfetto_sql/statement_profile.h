// Per-statement timing of included modules, for finding the statements that
// make an INCLUDE slow: with FATHOM_SQL_PROFILE=FILE (or "-" for stderr) each
// statement of each module run appends one line
//   <cpu ms>\t<wall ms>\t<file>:<line>\t<the statement's first line>
// Times are the statement's own: an INCLUDE inside a module is not listed,
// the statements of the module it runs are.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>
#include <string_view>

namespace fathom::psql {

class StatementProfile {
 public:
  // The profile the environment asks for, or null (the usual case).
  static StatementProfile* FromEnv();

  // Measures one statement; Stop() records it unless it was an INCLUDE.
  class Timer {
   public:
    explicit Timer(StatementProfile* p);
    void Stop(const std::string& file, int line, std::string_view stmt);

   private:
    StatementProfile* profile_;
    std::chrono::steady_clock::time_point wall_;
    double cpu_ms_ = 0;
  };

 private:
  explicit StatementProfile(FILE* out) : out_(out) {}
  FILE* out_;
};

}  // namespace fathom::psql
