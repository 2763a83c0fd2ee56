// fathom-test-adbd: a test double of adbd over TCP whose "device" is this
// machine (see host_adbd.h). Used by the record tests, and handy by hand:
//   fathom-test-adbd --port 0 --allow-any-key &   # prints "listening on 127.0.0.1:PORT"
//   fathom-cli record -s 127.0.0.1:PORT --preset memory -o out.pftrace
// With --misbehave MODE it is a hostile device instead (hostile_adbd.h), for robustness
// tests: `fathom-test-adbd --misbehave pull_stall_mid` then `fathom-cli pull -s ... /data/x`.
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "host_adbd.h"
#include "hostile_adbd.h"

namespace {

// SIGTERM and SIGINT are blocked before the servers start their threads (which
// inherit the mask) and taken by the main thread with sigwait. A handler that
// set a flag for `while (!stop) pause()` missed them whenever the kernel
// delivered the signal to a server thread: the main thread's pause() never
// returned, `kill` did not stop the double and a test's `wait` could block.
sigset_t BlockStopSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  return set;
}

void WaitForStop(const sigset_t& set) {
  int sig = 0;
  sigwait(&set, &sig);
}

int Usage() {
  std::fprintf(stderr,
               "usage: fathom-test-adbd [--port N] [--trust ADBKEY.pub]... [--allow-any-key]\n"
               "                        [--no-auth] [--banner BANNER] [--features LIST]\n"
               "                        [--misbehave MODE]\n"
               "  --features LIST: comma list the device advertises, e.g.\n"
               "    shell_v2,cmd,stat_v2,ls_v2,fixed_push_mkdir,sendrecv_v2,sendrecv_v2_zstd\n"
               "  --misbehave MODE: a hostile device (HOSTILE_FEATURES, HOSTILE_N, HOSTILE_GB\n"
               "    as for hostile_adbd.py); MODE is one of:\n   ");
  for (const std::string& m : fathom::adb::testing::HostileModes()) {
    std::fprintf(stderr, " %s", m.c_str());
  }
  std::fprintf(stderr, "\n");
  return 2;
}
}  // namespace

int main(int argc, char** argv) {
  using namespace fathom::adb;
  testing::HostAdbdOptions options;
  uint16_t port = 0;
  std::string misbehave;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    if (a == "--port") {
      const char* v = next();
      if (!v) return Usage();
      port = static_cast<uint16_t>(std::stoi(v));
    } else if (a == "--trust") {
      const char* v = next();
      if (!v) return Usage();
      std::ifstream f(v);
      std::stringstream text;
      text << f.rdbuf();
      auto key = AuthPublicKey::FromAndroidText(text.str());
      if (!f || !key.ok()) {
        std::fprintf(stderr, "fathom-test-adbd: %s: not an adb public key\n", v);
        return 1;
      }
      options.trusted.push_back(*key);
    } else if (a == "--allow-any-key") {
      options.accept_any_key = true;
    } else if (a == "--no-auth") {
      options.require_auth = false;
    } else if (a == "--features") {
      const char* v = next();
      if (!v) return Usage();
      options.banner = std::string("device::features=") + v + ";";
    } else if (a == "--misbehave") {
      const char* v = next();
      if (!v || !testing::IsHostileMode(v)) return Usage();
      misbehave = v;
    } else if (a == "--banner") {
      const char* v = next();
      if (!v) return Usage();
      options.banner = v;
    } else {
      return Usage();
    }
  }
  const sigset_t stop_signals = BlockStopSignals();
  signal(SIGPIPE, SIG_IGN);
  if (!misbehave.empty()) {
    testing::HostileAdbdServer hostile(port, misbehave, testing::HostileOptions::FromEnvironment());
    if (!hostile.ok()) {
      std::fprintf(stderr, "fathom-test-adbd: cannot listen on 127.0.0.1:%u\n", port);
      return 1;
    }
    std::printf("listening on 127.0.0.1:%u (misbehaving: %s)\n", hostile.port(), misbehave.c_str());
    std::fflush(stdout);
    WaitForStop(stop_signals);
    return 0;
  }
  testing::HostAdbdServer server(port, options);
  if (!server.ok()) {
    std::fprintf(stderr, "fathom-test-adbd: cannot listen on 127.0.0.1:%u\n", port);
    return 1;
  }
  std::printf("listening on 127.0.0.1:%u\n", server.port());
  std::fflush(stdout);
  WaitForStop(stop_signals);
  return 0;
}
