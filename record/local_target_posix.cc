// TargetShell for this computer: /bin/sh and plain file copies. The one
// POSIX-only file of record/ (recording this computer is Linux-only).
#include "record/target_shell.h"

#if defined(__linux__)
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>

namespace fathom::record {
namespace {

class LocalTarget : public TargetShell {
 public:
  std::string Describe() const override { return "this computer"; }

  Result<adb::ShellResult> Run(const std::string& command, std::string_view stdin_data,
                               Deadline deadline, const CancelToken& cancel) override {
    int in[2], out[2], err[2];
    if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC))
      return ErrorStatus("pipe failed");
    pid_t pid = fork();
    if (pid < 0) return ErrorStatus("fork failed");
    if (pid == 0) {
      dup2(in[0], 0);
      dup2(out[1], 1);
      dup2(err[1], 2);
      execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    close(in[0]);
    close(out[1]);
    close(err[1]);
    // Write stdin up front: configs are small, far below the pipe buffer.
    size_t off = 0;
    while (off < stdin_data.size()) {
      ssize_t n = write(in[1], stdin_data.data() + off, stdin_data.size() - off);
      if (n <= 0) break;
      off += static_cast<size_t>(n);
    }
    close(in[1]);
    adb::ShellResult result;
    pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
    int open = 2;
    char buf[16384];
    bool killed = false;
    while (open > 0) {
      if (!killed && (cancel.cancelled() || deadline.expired())) {
        kill(pid, SIGKILL);
        killed = true;
      }
      if (poll(fds, 2, 50) < 0 && errno != EINTR) break;
      for (int i = 0; i < 2; ++i) {
        if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        ssize_t n = read(fds[i].fd, buf, sizeof buf);
        if (n <= 0) {
          close(fds[i].fd);
          fds[i].fd = -1;
          --open;
        } else {
          (i == 0 ? result.out : result.err).append(buf, static_cast<size_t>(n));
        }
      }
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (killed) return ErrorStatus(cancel.cancelled() ? "cancelled" : "timed out: " + command);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return result;
  }

  Status Push(const std::string& local, const std::string& remote, uint32_t mode, Deadline,
              const CancelToken&) override {
    std::error_code ec;
    std::filesystem::copy_file(local, remote, std::filesystem::copy_options::overwrite_existing,
                               ec);
    if (ec) return ErrorStatus(remote + ": " + ec.message());
    std::filesystem::permissions(remote, static_cast<std::filesystem::perms>(mode & 0777), ec);
    return Status::Ok();
  }

  Status Pull(const std::string& remote, const std::string& local,
              const std::function<void(uint64_t)>& progress, Deadline,
              const CancelToken& cancel) override {
    std::ifstream in(remote, std::ios::binary);
    if (!in) return ErrorStatus(remote + ": cannot read");
    std::ofstream out(local, std::ios::binary | std::ios::trunc);
    if (!out) return ErrorStatus(local + ": cannot write");
    std::string buf(1 << 20, '\0');
    uint64_t total = 0;
    while (in) {
      if (cancel.cancelled()) return ErrorStatus("cancelled");
      in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
      const auto n = in.gcount();
      if (n <= 0) break;
      out.write(buf.data(), n);
      total += static_cast<uint64_t>(n);
      if (progress) progress(total);
    }
    out.close();
    if (!out) return ErrorStatus(local + ": write failed (disk full?)");
    return Status::Ok();
  }
};

}  // namespace

Result<std::unique_ptr<TargetShell>> OpenLocalTarget() {
  return std::unique_ptr<TargetShell>(new LocalTarget());
}

}  // namespace fathom::record

#else

namespace fathom::record {
Result<std::unique_ptr<TargetShell>> OpenLocalTarget() {
  return ErrorStatus("recording this computer works on Linux only; record a device over adb");
}
}  // namespace fathom::record

#endif
