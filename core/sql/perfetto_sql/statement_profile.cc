#include "core/sql/perfetto_sql/statement_profile.h"

#include <cstdlib>
#include <ctime>

namespace fathom::psql {
namespace {

double ProcessCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

// The statement's first non-blank line without its comments, cut short.
std::string Headline(std::string_view stmt) {
  std::string out;
  size_t i = 0;
  while (i < stmt.size()) {
    size_t end = stmt.find('\n', i);
    if (end == std::string_view::npos) end = stmt.size();
    std::string_view line = stmt.substr(i, end - i);
    i = end + 1;
    const size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos || line.substr(first, 2) == "--") continue;
    out = std::string(line.substr(first, 100));
    break;
  }
  for (char& c : out)
    if (c == '\t') c = ' ';
  return out;
}

}  // namespace

StatementProfile* StatementProfile::FromEnv() {
  // One profile per process: modules of every engine append to it.
  static StatementProfile* profile = []() -> StatementProfile* {
    const char* path = std::getenv("FATHOM_SQL_PROFILE");
    if (!path || !*path) return nullptr;
    FILE* out = std::string(path) == "-" ? stderr : std::fopen(path, "a");
    return out ? new StatementProfile(out) : nullptr;
  }();
  return profile;
}

StatementProfile::Timer::Timer(StatementProfile* p) : profile_(p) {
  if (!profile_) return;
  wall_ = std::chrono::steady_clock::now();
  cpu_ms_ = ProcessCpuMs();
}

void StatementProfile::Timer::Stop(const std::string& file, int line, std::string_view stmt) {
  if (!profile_) return;
  const std::string head = Headline(stmt);
  if (head.rfind("INCLUDE", 0) == 0) return;
  const double wall =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - wall_).count();
  std::fprintf(profile_->out_, "%.1f\t%.1f\t%s:%d\t%s\n", ProcessCpuMs() - cpu_ms_, wall,
               file.c_str(), line, head.c_str());
  std::fflush(profile_->out_);
}

}  // namespace fathom::psql
