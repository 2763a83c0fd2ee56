// `fathom-cli shell|push|pull|connect|disconnect`: adb's everyday verbs on top
// of record/'s TargetShell, so the CLI, `record` and the Record page reach a
// device the same way (adb server when it holds the device, else direct USB
// or TCP).
#if defined(_WIN32)
#include <io.h>
#include <process.h>
#define isatty _isatty
#define getpid _getpid
#define STDIN_FILENO 0
#define STDERR_FILENO 2
#else
#include <unistd.h>
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "adb/device_connector.h"
#include "adb/device_names.h"
#include "adb/remote_tree.h"
#include "app/cli/adb_options.h"
#include "app/cli/commands.h"
#include "app/cli/stop_requests.h"
#include "base/utf8_path.h"
#include "record/target_discovery.h"
#include "record/target_shell.h"

namespace fathom::cli {
namespace {

namespace fs = std::filesystem;
using record::AdbRoute;
using record::CancelToken;
using record::Deadline;

int Fail(const std::string& message) {
  std::fprintf(stderr, "fathom-cli: %s\n", message.c_str());
  return 1;
}

// While alive, stop requests (Ctrl-C, SIGTERM, SIGHUP; app/cli/stop_requests.h) cancel
// `cancel` instead of ending the process, so a pull removes its temporary file and a
// transfer ends as an error like any other (exit 128 + the signal, as a shell reports it).
class SignalsCancel {
 public:
  explicit SignalsCancel(const CancelToken& cancel) : cancel_(cancel) {
    CatchStopRequests();
    watcher_ = std::thread([this] {
      while (!done_) {
        if (StopRequests() > 0) cancel_.Cancel();
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    });
  }
  ~SignalsCancel() {
    done_ = true;
    watcher_.join();
    ReleaseStopRequests();
  }
  // The exit status for a stop request (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP), or `code`.
  static int ExitCode(int code) {
    if (StopRequests() == 0) return code;
    const std::string how = FirstStopRequestName();
    return how == "SIGTERM" ? 143 : how == "SIGHUP" ? 129 : 130;
  }

 private:
  CancelToken cancel_;
  std::atomic<bool> done_{false};
  std::thread watcher_;
};

// An error unless the bytes received match the device's stat. Size 0 is what procfs and
// sysfs files report (their content has no size until read), so any length is right there;
// a v1 STAT/LIST carries only the low 32 bits of the size.
Status CheckPulledSize(uint64_t expected, uint64_t got) {
  if (expected == 0 || got == expected) return Status::Ok();
  if (expected <= 0xffffffffu && got > expected && (got & 0xffffffffu) == expected) {
    return Status::Ok();
  }
  return ErrorStatus("received " + std::to_string(got) + " bytes but the device's stat said " +
                     std::to_string(expected) +
                     " (the file is incomplete or changed during the pull)");
}

// Opens the selected device, telling the user when the route is not the obvious one.
Result<std::unique_ptr<record::TargetShell>> Open(const AdbOptions& o, const CancelToken& c) {
  auto serial = ChooseSerial(o);
  if (!serial.ok()) return serial.status();
  std::string note;
  auto shell = record::OpenAdbTarget(*serial, o.route, &note, c);
  if (shell.ok() && !note.empty()) std::fprintf(stderr, "fathom-cli: note: %s\n", note.c_str());
  return shell;
}

std::string Basename(const std::string& path) {
  size_t end = path.find_last_not_of('/');
  if (end == std::string::npos) return path;
  size_t start = path.rfind('/', end);
  return path.substr(start == std::string::npos ? 0 : start + 1,
                     end - (start == std::string::npos ? 0 : start + 1) + 1);
}

std::string Rate(uint64_t bytes, double seconds) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%llu bytes in %.3fs (%.1f MB/s)",
                static_cast<unsigned long long>(bytes), seconds,
                seconds > 0 ? bytes / seconds / 1e6 : 0.0);
  return buf;
}

// st_mode of the device (POSIX values whatever the host): 0040000 is a directory.
bool IsDirMode(uint32_t mode) { return (mode & 0170000) == 0040000; }

double SecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

bool IsRegularMode(uint32_t mode) { return (mode & 0170000) == 0100000; }

std::string JoinRemote(const std::string& dir, const std::string& name) {
  return dir.empty() || dir.back() == '/' ? dir + name : dir + "/" + name;
}

// 'text' for the device's /bin/sh.
std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

struct TreeTotals {
  uint64_t files = 0, bytes = 0, skipped = 0;
};

// `push DIR REMOTE` as adb does it: every regular file under DIR with its permission bits;
// the device creates parent directories (fixed_push_mkdir), empty ones are made with mkdir.
Status PushTree(record::TargetShell& shell, const fs::path& local, const std::string& remote_root,
                TreeTotals* totals, const CancelToken& cancel) {
  const Deadline deadline = Deadline::Never();
  std::error_code ec;
  std::vector<std::string> empty_dirs;
  if (fs::is_empty(local, ec)) empty_dirs.push_back(remote_root);
  for (fs::recursive_directory_iterator it(local, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::directory_entry& e = *it;
    const std::string remote =
        JoinRemote(remote_root, e.path().lexically_relative(local).generic_string());
    const fs::file_status st = e.symlink_status(ec);
    if (fs::is_directory(st)) {
      if (fs::is_empty(e.path(), ec)) empty_dirs.push_back(remote);
    } else if (fs::is_regular_file(st)) {
      const uint32_t mode = static_cast<uint32_t>(st.permissions() & fs::perms::mask) & 0777;
      if (Status s = shell.Push(PathToUtf8(e.path()), remote, mode, deadline, cancel); !s.ok()) {
        return ErrorStatus(remote + ": " + s.message());
      }
      ++totals->files;
      totals->bytes += fs::file_size(e.path(), ec);
    } else {
      ++totals->skipped;  // symlinks, sockets, devices: adb skips those too
      std::fprintf(stderr, "fathom-cli: skipping %s (not a regular file)\n",
                   PathToUtf8(e.path()).c_str());
    }
  }
  if (ec) return ErrorStatus(PathToUtf8(local) + ": " + ec.message());
  // A few hundred directories per mkdir keeps each command line short.
  for (size_t i = 0; i < empty_dirs.size();) {
    std::string cmd = "mkdir -p";
    for (; i < empty_dirs.size() && cmd.size() < 3000; ++i) {
      cmd += ' ';
      cmd += ShellQuote(empty_dirs[i]);
    }
    auto r = shell.Run(cmd, "", deadline, cancel);
    if (!r.ok()) return r.status();
    if (r->exit_code > 0) return ErrorStatus("mkdir failed: " + r->err);
  }
  return Status::Ok();
}

// Prints what a tree walk left out: the first lines, then how many more.
void PrintDropped(const adb::RemoteTreeReport& report) {
  for (const std::string& line : report.dropped) {
    std::fprintf(stderr, "fathom-cli: warning: skipped %s\n", line.c_str());
  }
  if (report.dropped_count > report.dropped.size()) {
    std::fprintf(stderr, "fathom-cli: warning: ... and %llu more skipped\n",
                 static_cast<unsigned long long>(report.dropped_count - report.dropped.size()));
  }
}

// `pull DIR LOCAL` as adb does it: every regular file through a temporary name renamed when
// complete, permission bits kept. The walk (adb/remote_tree.h) hands out only names checked
// safe as one path component, so every path built here stays below `local`.
Status PullTree(record::TargetShell& shell, const std::string& remote, const fs::path& local,
                uint32_t dir_mode, const adb::RemoteTreeLimits& limits, TreeTotals* totals,
                adb::RemoteTreeReport* report, const CancelToken& cancel) {
  const Deadline deadline = Deadline::Never();
  std::error_code ec;
  fs::create_directories(local, ec);
  if (ec) return ErrorStatus(PathToUtf8(local) + ": " + ec.message());
  // Directory modes go on last, deepest first, so a read-only directory can still be filled.
  std::vector<std::pair<fs::path, uint32_t>> dir_modes{{local, dir_mode}};
  auto visit = [&](const adb::RemoteTreeEntry& e) -> Status {
    fs::path to = local;
    for (const std::string& part : e.relative) to /= part;
    const std::string shown = adb::EscapeForTerminal(e.remote);
    if (IsDirMode(e.stat.mode)) {
      fs::create_directory(to, ec);
      if (ec) return ErrorStatus(PathToUtf8(to) + ": " + ec.message());
      dir_modes.emplace_back(to, e.stat.mode);
    } else if (IsRegularMode(e.stat.mode)) {
      const std::string partial = PathToUtf8(to) + ".fathom-partial." + std::to_string(::getpid());
      uint64_t got = 0;
      Status st = shell.Pull(
          e.remote, partial, [&](uint64_t n) { got = n; }, deadline, cancel);
      if (!st.ok()) st = ErrorStatus(shown + ": " + st.message());
      if (Status size = CheckPulledSize(e.stat.size, got); st.ok() && !size.ok()) {
        // One file that does not match its listing is left out, not the rest of the tree.
        fs::remove(PathFromUtf8(partial), ec);
        report->Drop(shown + ": " + size.message());
        return Status::Ok();
      }
      if (st.ok()) fs::rename(PathFromUtf8(partial), to, ec);
      if (!st.ok() || ec) {
        fs::remove(PathFromUtf8(partial), ec);
        return st.ok() ? ErrorStatus(shown + ": " + ec.message()) : st;
      }
      fs::permissions(to, static_cast<fs::perms>(e.stat.mode & 0777), ec);
      ++totals->files;
      totals->bytes += got;
    } else {
      ++totals->skipped;
      if (totals->skipped <= adb::RemoteTreeReport::kMaxDroppedLines) {
        std::fprintf(stderr, "fathom-cli: skipping %s (not a regular file)\n", shown.c_str());
      }
    }
    return Status::Ok();
  };
  auto list = [&](const std::string& dir) { return shell.List(dir, deadline, cancel); };
  Status walked = adb::WalkRemoteTree(remote, list, visit, limits, report, cancel);
  for (auto it = dir_modes.rbegin(); it != dir_modes.rend(); ++it) {
    if (it->second) fs::permissions(it->first, static_cast<fs::perms>(it->second & 0777), ec);
  }
  return walked;
}

}  // namespace

int RunShell(const std::vector<std::string>& args) {
  AdbOptions o;
  size_t i = 0;
  bool no_stdin = false;
  for (; i < args.size(); ++i) {  // options only before the command: it may contain "-s"
    if (args[i] == "-n") {
      no_stdin = true;
      continue;
    }
    int used = ParseAdbOption(args, i, &o);
    if (used < 0) return 2;
    if (used == 0) break;
    i += used - 1;
  }
  if (i < args.size() && args[i] == "--") ++i;
  if (i == args.size()) {
    std::fprintf(stderr,
                 "usage: fathom-cli shell [-s SERIAL] [--transport auto|usb|tcp|server] [-n]\n"
                 "                        %s CMD...\n"
                 "(interactive shells are not supported yet; the command may be quiet as long "
                 "as it likes\nunless --timeout-idle SEC or FATHOM_ADB_TIMEOUT_IDLE is given)\n",
                 kAdbLimitOptions);
    return 2;
  }
  // A user's command may be quiet for minutes (a synchronous perfetto capture,
  // `sleep 120`), as with adb: its output has no idle limit unless one is asked
  // for. Connect, auth and open keep theirs; Ctrl-C ends a stalled device.
  bool idle_asked = std::getenv("FATHOM_ADB_TIMEOUT_IDLE") != nullptr;
  for (size_t k = 0; k < i; ++k) idle_asked = idle_asked || args[k] == "--timeout-idle";
  if (!idle_asked) {
    o.timeouts.idle = adb::Millis{0};
    adb::SetDefaultTimeouts(o.timeouts);
  }
  std::string command;
  for (; i < args.size(); ++i) command += (command.empty() ? "" : " ") + args[i];
  // Like adb: a piped stdin goes to the command; -n or a terminal sends none.
  std::string input;
  if (!no_stdin && !isatty(STDIN_FILENO)) {
    input.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  }
  CancelToken cancel;
  SignalsCancel signals(cancel);
  auto shell = Open(o, cancel);
  if (!shell.ok()) return SignalsCancel::ExitCode(Fail(shell.status().message()));
  auto write = [](FILE* f) {
    return [f](std::string_view b) {
      std::fwrite(b.data(), 1, b.size(), f);
      std::fflush(f);
    };
  };
  auto code = (*shell)->RunStreaming(command, input, write(stdout), write(stderr),
                                     Deadline::Never(), cancel);
  if (!code.ok()) return SignalsCancel::ExitCode(Fail(code.status().message()));
  return *code < 0 ? 0 : *code;  // legacy shell: no exit status (adb also says 0)
}

int RunPush(const std::vector<std::string>& args) {
  AdbOptions o;
  std::vector<std::string> paths;
  if (!ParseAdbArgs(args, &o, &paths)) return 2;
  if (paths.size() != 2) {
    std::fprintf(stderr, "usage: fathom-cli push [-s SERIAL] [--transport T] %s LOCAL REMOTE\n",
                 kAdbLimitOptions);
    return 2;
  }
  const std::string& local = paths[0];
  std::string remote = paths[1];
  std::error_code ec;
  const fs::file_status st = fs::status(PathFromUtf8(local), ec);
  if (ec || !fs::exists(st)) return Fail(local + ": no such file");
  const bool tree = fs::is_directory(st);
  if (!tree && !fs::is_regular_file(st)) {
    return Fail(local + ": only regular files and directories can be pushed");
  }
  const uint64_t size = tree ? 0 : fs::file_size(PathFromUtf8(local), ec);
  // Permission bits travel with the file (a pushed program stays executable).
  const uint32_t mode = static_cast<uint32_t>(st.permissions() & fs::perms::mask) & 0777;
  CancelToken cancel;
  SignalsCancel signals(cancel);
  auto shell = Open(o, cancel);
  if (!shell.ok()) return SignalsCancel::ExitCode(Fail(shell.status().message()));
  const Deadline deadline = Deadline::Never();
  // "dir/" or an existing directory on the device: keep the local name, as adb does.
  bool into_dir = !remote.empty() && remote.back() == '/';
  if (!into_dir) {
    auto rs = (*shell)->Stat(remote, deadline, cancel);
    into_dir = rs.ok() && IsDirMode(rs->mode);
  }
  if (into_dir) remote = (remote.back() == '/' ? remote : remote + "/") + Basename(local);
  const auto t0 = std::chrono::steady_clock::now();
  if (tree) {
    TreeTotals totals;
    Status pushed = PushTree(**shell, PathFromUtf8(local), remote, &totals, cancel);
    if (!pushed.ok()) return SignalsCancel::ExitCode(Fail(pushed.message()));
    std::fprintf(stderr, "%s -> %s: %llu file%s pushed%s, %s\n", local.c_str(), remote.c_str(),
                 static_cast<unsigned long long>(totals.files), totals.files == 1 ? "" : "s",
                 totals.skipped ? (", " + std::to_string(totals.skipped) + " skipped").c_str() : "",
                 Rate(totals.bytes, SecondsSince(t0)).c_str());
    return 0;
  }
  Status pushed = (*shell)->Push(local, remote, mode, deadline, cancel);
  if (!pushed.ok()) return SignalsCancel::ExitCode(Fail(remote + ": " + pushed.message()));
  std::fprintf(stderr, "%s -> %s: 1 file pushed, %s\n", local.c_str(), remote.c_str(),
               Rate(size, SecondsSince(t0)).c_str());
  return 0;
}

// `pull DIR`: the tree, then a summary; entries left out make it a failure.
int PullDirectory(record::TargetShell& shell, const AdbOptions& o, const std::string& remote,
                  const std::string& local, uint32_t mode, const CancelToken& cancel) {
  const auto t0 = std::chrono::steady_clock::now();
  TreeTotals totals;
  adb::RemoteTreeReport report;
  Status pulled =
      PullTree(shell, remote, PathFromUtf8(local), mode, o.tree_limits, &totals, &report, cancel);
  PrintDropped(report);
  if (!pulled.ok()) return Fail(pulled.message());
  std::fprintf(stderr, "%s -> %s: %llu file%s pulled%s, %s\n", remote.c_str(), local.c_str(),
               static_cast<unsigned long long>(totals.files), totals.files == 1 ? "" : "s",
               totals.skipped ? (", " + std::to_string(totals.skipped) + " skipped").c_str() : "",
               Rate(totals.bytes, SecondsSince(t0)).c_str());
  // Entries left out for safety or a limit make the copy incomplete: not a success.
  if (report.dropped_count > 0) {
    return Fail(std::to_string(report.dropped_count) +
                " entries of the device's listing were not pulled (see the warnings)");
  }
  return 0;
}

// `pull FILE`: streamed into LOCAL.fathom-partial.PID beside LOCAL, renamed when complete
// and as long as the device's stat said; on any error or interruption the temporary file is
// removed, so LOCAL is either whole or untouched.
int PullFile(record::TargetShell& shell, const std::string& remote, const std::string& local,
             const adb::SyncStat& stat, const CancelToken& cancel) {
  const uint64_t total = stat.size;
  const std::string partial = local + ".fathom-partial." + std::to_string(::getpid());
  const bool tty = isatty(STDERR_FILENO);
  const auto t0 = std::chrono::steady_clock::now();
  auto last = t0;
  uint64_t got = 0;
  auto progress = [&](uint64_t n) {
    got = n;
    if (!tty) return;
    auto now = std::chrono::steady_clock::now();
    if (now - last < std::chrono::milliseconds(100)) return;
    last = now;
    if (total > 0) {
      std::fprintf(stderr, "\r[%3d%%] %s: %.1f / %.1f MB",
                   static_cast<int>(std::min<uint64_t>(n * 100 / total, 999)), remote.c_str(),
                   n / 1e6, total / 1e6);
    } else {
      std::fprintf(stderr, "\r%s: %.1f MB", remote.c_str(), n / 1e6);
    }
  };
  Status pulled = shell.Pull(remote, partial, progress, Deadline::Never(), cancel);
  if (tty) std::fprintf(stderr, "\r\033[K");
  // Only a regular file's stat size is its length (a symlink's is the target name's).
  if (pulled.ok() && IsRegularMode(stat.mode)) pulled = CheckPulledSize(total, got);
  std::error_code ec;
  if (pulled.ok()) {
    fs::rename(PathFromUtf8(partial), PathFromUtf8(local), ec);
    if (ec) pulled = ErrorStatus(local + ": " + ec.message());
  }
  if (!pulled.ok()) {
    fs::remove(PathFromUtf8(partial), ec);
    return Fail(remote + ": " + pulled.message());
  }
  std::fprintf(stderr, "%s -> %s: 1 file pulled, %s\n", remote.c_str(), local.c_str(),
               Rate(got, SecondsSince(t0)).c_str());
  return 0;
}

int RunPull(const std::vector<std::string>& args) {
  AdbOptions o;
  std::vector<std::string> paths;
  if (!ParseAdbArgs(args, &o, &paths)) return 2;
  if (paths.empty() || paths.size() > 2) {
    std::fprintf(stderr,
                 "usage: fathom-cli pull [-s SERIAL] [--transport T] [--max-depth N] "
                 "[--max-entries N]\n                      %s REMOTE [LOCAL]\n",
                 kAdbLimitOptions);
    return 2;
  }
  const std::string& remote = paths[0];
  std::string local = paths.size() == 2 ? paths[1] : Basename(remote);
  std::error_code ec;
  if (fs::is_directory(PathFromUtf8(local), ec))
    local = PathToUtf8(PathFromUtf8(local) / PathFromUtf8(Basename(remote)));
  CancelToken cancel;
  SignalsCancel signals(cancel);
  auto shell = Open(o, cancel);
  if (!shell.ok()) return SignalsCancel::ExitCode(Fail(shell.status().message()));
  // A failed stat is an error: pulling what does not exist used to "succeed".
  auto rs = (*shell)->Stat(remote, Deadline::Never(), cancel);
  if (!rs.ok()) return SignalsCancel::ExitCode(Fail(remote + ": " + rs.status().message()));
  const int code = IsDirMode(rs->mode) ? PullDirectory(**shell, o, remote, local, rs->mode, cancel)
                                       : PullFile(**shell, remote, local, *rs, cancel);
  return SignalsCancel::ExitCode(code);
}

int RunConnect(const std::vector<std::string>& args, bool connect) {
  AdbOptions o;
  std::vector<std::string> paths;
  if (!ParseAdbArgs(args, &o, &paths)) return 2;
  if (paths.size() != 1 || !adb::IsTcpSerial(paths[0])) {
    std::fprintf(stderr, "usage: fathom-cli %s HOST:PORT\n", connect ? "connect" : "disconnect");
    return 2;
  }
  const std::string& serial = paths[0];
  if (connect) {
    // Prove it answers (handshake, AUTH) before remembering it.
    CancelToken cancel;
    std::string note;
    auto shell = record::OpenAdbTarget(serial, o.route, &note, cancel);
    if (!shell.ok()) return Fail("cannot connect to " + serial + ": " + shell.status().message());
    if (!note.empty()) std::fprintf(stderr, "fathom-cli: note: %s\n", note.c_str());
  }
  if (Status st = record::SetTcpTargetRemembered(serial, connect); !st.ok()) {
    return Fail(st.message());
  }
  std::printf("%s %s (list: %s)\n", connect ? "connected to" : "forgot", serial.c_str(),
              record::RememberedTcpTargetsPath().c_str());
  return 0;
}

}  // namespace fathom::cli
