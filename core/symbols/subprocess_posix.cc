// POSIX (Linux, macOS): posix_spawnp with pipes on stdin/stdout; stderr goes
// to a pipe too so a failing child's message can be reported.
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#include "core/symbols/subprocess.h"

extern char** environ;

namespace fathom::symbols {
namespace {

class PosixSubprocess : public Subprocess {
 public:
  PosixSubprocess(pid_t pid, int in, int out, int err, std::string name)
      : pid_(pid), in_(in), out_(out), err_(err), name_(std::move(name)) {}
  ~PosixSubprocess() override {
    if (in_ >= 0) close(in_);  // EOF on stdin: llvm-symbolizer exits by itself
    close(out_);
    if (err_ >= 0) close(err_);
    int status;
    // Give it a moment to exit cleanly, then make sure it does.
    for (int i = 0; i < 50; ++i) {
      if (waitpid(pid_, &status, WNOHANG) == pid_) return;
      usleep(2000);
    }
    kill(pid_, SIGKILL);
    waitpid(pid_, &status, 0);
  }

  Status Write(const std::string& data) override {
    size_t done = 0;
    while (done < data.size()) {
      ssize_t n = write(in_, data.data() + done, data.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0)
        return ErrorStatus(name_ + ": writing to its stdin failed: " + strerror(errno) +
                           StderrTail());
      done += static_cast<size_t>(n);
    }
    return Status::Ok();
  }

  Result<std::string> ReadLine() override {
    for (;;) {
      size_t nl = buf_.find('\n');
      if (nl != std::string::npos) {
        std::string line = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        return line;
      }
      // Drain stderr while waiting, so a chatty child never blocks on a full
      // stderr pipe while we wait for its stdout.
      pollfd fds[2] = {{out_, POLLIN, 0}, {err_, POLLIN, 0}};
      int nfds = err_ >= 0 ? 2 : 1;
      if (poll(fds, nfds, -1) < 0) {
        if (errno == EINTR) continue;
        return ErrorStatus(name_ + ": poll: " + strerror(errno));
      }
      char chunk[65536];
      if (nfds == 2 && (fds[1].revents & (POLLIN | POLLHUP))) {
        ssize_t n = read(err_, chunk, sizeof chunk);
        if (n > 0) {
          err_text_.append(chunk, static_cast<size_t>(n));
          if (err_text_.size() > 8192) err_text_.erase(0, err_text_.size() - 4096);
        } else if (n == 0) {
          close(err_);
          err_ = -1;
        }
      }
      if (!(fds[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = read(out_, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return ErrorStatus(name_ + " exited unexpectedly" + StderrTail());
      buf_.append(chunk, static_cast<size_t>(n));
    }
  }

 private:
  std::string StderrTail() {
    std::string text = err_text_;
    if (err_ >= 0) {
      int flags = fcntl(err_, F_GETFL);
      fcntl(err_, F_SETFL, flags | O_NONBLOCK);
      char chunk[4096];
      ssize_t n;
      while ((n = read(err_, chunk, sizeof chunk)) > 0 && text.size() < 8192)
        text.append(chunk, static_cast<size_t>(n));
    }
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    return text.empty() ? std::string() : ": " + text;
  }

  pid_t pid_;
  int in_, out_, err_;
  std::string name_;
  std::string buf_;
  std::string err_text_;  // the tail of what the child wrote to stderr
};

}  // namespace

Result<std::unique_ptr<Subprocess>> Subprocess::Start(const std::vector<std::string>& argv) {
  if (argv.empty()) return ErrorStatus("no program to start");
  int in[2], out[2], err[2];
  if (pipe(in) != 0) return ErrorStatus(std::string("pipe: ") + strerror(errno));
  if (pipe(out) != 0) {
    close(in[0]);
    close(in[1]);
    return ErrorStatus(std::string("pipe: ") + strerror(errno));
  }
  if (pipe(err) != 0) {
    for (int fd : {in[0], in[1], out[0], out[1]}) close(fd);
    return ErrorStatus(std::string("pipe: ") + strerror(errno));
  }
  // Our ends must not leak into the child (or into later children).
  for (int fd : {in[1], out[0], err[0]}) fcntl(fd, F_SETFD, FD_CLOEXEC);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, argv[0].c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(in[0]);
  close(out[1]);
  close(err[1]);
  if (rc != 0) {
    for (int fd : {in[1], out[0], err[0]}) close(fd);
    return ErrorStatus("cannot start " + argv[0] + ": " + strerror(rc));
  }
  // A child that died must not kill us with SIGPIPE when we write to it (the
  // write then fails with EPIPE). A handler the application installed stays.
  struct sigaction old {};
  if (sigaction(SIGPIPE, nullptr, &old) == 0 && old.sa_handler == SIG_DFL) signal(SIGPIPE, SIG_IGN);
  return std::unique_ptr<Subprocess>(new PosixSubprocess(pid, in[1], out[0], err[0], argv[0]));
}

}  // namespace fathom::symbols
