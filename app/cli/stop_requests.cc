#include "app/cli/stop_requests.h"

#include <atomic>

#if defined(_WIN32)
#include <windows.h>
#else
#include <signal.h>
#endif

namespace fathom::cli {
namespace {

// Lock-free atomics are safe to touch from a signal handler.
std::atomic<int> g_requests{0};
std::atomic<const char*> g_first{""};

void Count(const char* name) {
  const char* none = "";
  g_first.compare_exchange_strong(none, name);
  g_requests.fetch_add(1);
}

#if defined(_WIN32)

BOOL WINAPI OnConsoleEvent(DWORD event) {
  switch (event) {
    case CTRL_C_EVENT:
      Count("Ctrl-C");
      return TRUE;
    case CTRL_BREAK_EVENT:
      Count("Ctrl-Break");
      return TRUE;
    case CTRL_CLOSE_EVENT:
      // Windows ends the process when this returns (and after ~5 s anyway):
      // give the command that time to stop and pull.
      Count("console closed");
      Sleep(4500);
      return TRUE;
    default:
      return FALSE;
  }
}

#else

void OnSignal(int sig) { Count(sig == SIGINT ? "Ctrl-C" : sig == SIGTERM ? "SIGTERM" : "SIGHUP"); }

void Install(void (*handler)(int)) {
  struct sigaction sa = {};
  sa.sa_handler = handler;
  sigemptyset(&sa.sa_mask);
  // SA_RESTART: a blocking read in the command keeps going; the command polls the count.
  sa.sa_flags = SA_RESTART;
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
}

#endif

}  // namespace

void CatchStopRequests() {
#if defined(_WIN32)
  SetConsoleCtrlHandler(OnConsoleEvent, TRUE);
#else
  Install(OnSignal);
#endif
}

void ReleaseStopRequests() {
#if defined(_WIN32)
  SetConsoleCtrlHandler(OnConsoleEvent, FALSE);
#else
  Install(SIG_DFL);
#endif
}

int StopRequests() { return g_requests.load(); }

const char* FirstStopRequestName() { return g_first.load(); }

}  // namespace fathom::cli
