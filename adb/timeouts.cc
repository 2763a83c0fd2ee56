#include "adb/timeouts.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace fathom::adb {
namespace {

std::mutex g_mu;

// Built-ins, then the environment (read once: it is not expected to change while running).
AdbTimeouts& Current() {
  static AdbTimeouts t = [] {
    AdbTimeouts d;
    auto env = [](const char* name, Millis* into) {
      const char* v = std::getenv(name);
      if (!v || !*v) return;
      auto parsed = ParseTimeoutSeconds(v);
      if (parsed.ok()) {
        *into = *parsed;
      } else {
        std::fprintf(stderr, "fathom: ignoring %s=%s: %s\n", name, v,
                     parsed.status().message().c_str());
      }
    };
    env("FATHOM_ADB_TIMEOUT_CONNECT", &d.connect);
    env("FATHOM_ADB_TIMEOUT_AUTH", &d.auth);
    env("FATHOM_ADB_TIMEOUT_OPEN", &d.open);
    env("FATHOM_ADB_TIMEOUT_IDLE", &d.idle);
    return d;
  }();
  return t;
}

}  // namespace

AdbTimeouts DefaultTimeouts() {
  std::lock_guard<std::mutex> l(g_mu);
  return Current();
}

void SetDefaultTimeouts(const AdbTimeouts& timeouts) {
  std::lock_guard<std::mutex> l(g_mu);
  Current() = timeouts;
}

Result<Millis> ParseTimeoutSeconds(std::string_view text) {
  const std::string s(text);
  char* end = nullptr;
  const double seconds = std::strtod(s.c_str(), &end);
  // A week at most: beyond that "no limit" (0) says what is meant.
  if (s.empty() || *end != '\0' || !std::isfinite(seconds) || seconds < 0 ||
      seconds > 7 * 24 * 3600) {
    return ErrorStatus("'" + s + "' is not a number of seconds (0 = no limit)");
  }
  return Millis(static_cast<int64_t>(std::llround(seconds * 1000)));
}

Deadline WithLimit(Deadline caller, Millis limit) {
  if (limit.count() <= 0) return caller;
  return Deadline::Sooner(caller, Deadline::After(limit));
}

std::string FormatLimit(Millis limit) {
  char buf[32];
  if (limit.count() % 1000 == 0) {
    std::snprintf(buf, sizeof(buf), "%lld s", static_cast<long long>(limit.count() / 1000));
  } else {
    std::snprintf(buf, sizeof(buf), "%g s", limit.count() / 1000.0);
  }
  return buf;
}

Status TimeoutError(const std::string& what, Millis limit, const char* flag) {
  return ErrorStatus(what + " within " + FormatLimit(limit) + " (" + flag + ")");
}

}  // namespace fathom::adb
