// Windows: CreateProcessW with anonymous pipes on stdin, stdout and stderr.
// A reader thread drains stderr, so a chatty child never blocks on a full
// stderr pipe while we wait for its stdout (POSIX does the same with poll).
#include <windows.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/symbols/subprocess.h"

namespace fathom::symbols {
namespace {

std::wstring Widen(const std::string& s) {
  if (s.empty()) return std::wstring();
  int n = MultiByteToWideChar(CP_UTF8, 0, s.data(), static_cast<int>(s.size()), nullptr, 0);
  std::wstring w(static_cast<size_t>(n), L'\0');
  MultiByteToWideChar(CP_UTF8, 0, s.data(), static_cast<int>(s.size()), w.data(), n);
  return w;
}

std::string LastError(const char* what) {
  DWORD code = GetLastError();
  char* text = nullptr;
  FormatMessageA(
      FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS,
      nullptr, code, 0, reinterpret_cast<char*>(&text), 0, nullptr);
  std::string msg = std::string(what) + ": " + (text ? text : "error " + std::to_string(code));
  if (text) LocalFree(text);
  while (!msg.empty() && (msg.back() == '\n' || msg.back() == '\r')) msg.pop_back();
  return msg;
}

// One argument quoted the way CommandLineToArgvW (and the C runtime) splits
// it back: backslashes are literal except before a quote.
void AppendQuoted(const std::string& arg, std::string* out) {
  if (!arg.empty() && arg.find_first_of(" \t\n\v\"") == std::string::npos) {
    *out += arg;
    return;
  }
  *out += '"';
  size_t backslashes = 0;
  for (char c : arg) {
    if (c == '\\') {
      ++backslashes;
      continue;
    }
    if (c == '"')
      out->append(backslashes * 2 + 1, '\\');
    else
      out->append(backslashes, '\\');
    backslashes = 0;
    *out += c;
  }
  out->append(backslashes * 2, '\\');
  *out += '"';
}

class WinSubprocess : public Subprocess {
 public:
  WinSubprocess(PROCESS_INFORMATION pi, HANDLE in, HANDLE out, HANDLE err, std::string name)
      : pi_(pi), in_(in), out_(out), name_(std::move(name)) {
    stderr_reader_ = std::thread([this, err] {
      char chunk[4096];
      DWORD n = 0;
      while (ReadFile(err, chunk, sizeof chunk, &n, nullptr) && n > 0) {
        std::lock_guard<std::mutex> lock(err_mu_);
        err_text_.append(chunk, n);
        if (err_text_.size() > 8192) err_text_.erase(0, err_text_.size() - 4096);
      }
      CloseHandle(err);
    });
  }
  ~WinSubprocess() override {
    CloseHandle(in_);  // EOF on stdin: llvm-symbolizer exits by itself
    if (WaitForSingleObject(pi_.hProcess, 100) != WAIT_OBJECT_0) TerminateProcess(pi_.hProcess, 1);
    CloseHandle(out_);
    stderr_reader_.join();  // ends once the child is gone and its stderr closed
    CloseHandle(pi_.hThread);
    CloseHandle(pi_.hProcess);
  }

  Status Write(const std::string& data) override {
    size_t done = 0;
    while (done < data.size()) {
      DWORD n = 0;
      DWORD want = static_cast<DWORD>(std::min<size_t>(data.size() - done, 1 << 20));
      if (!WriteFile(in_, data.data() + done, want, &n, nullptr) || n == 0)
        return ErrorStatus(name_ + ": " + LastError("writing to its stdin failed") + StderrTail());
      done += n;
    }
    return Status::Ok();
  }

  Result<std::string> ReadLine() override {
    for (;;) {
      size_t nl = buf_.find('\n');
      if (nl != std::string::npos) {
        std::string line = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        if (!line.empty() && line.back() == '\r') line.pop_back();  // text-mode children
        return line;
      }
      char chunk[65536];
      DWORD n = 0;
      if (!ReadFile(out_, chunk, sizeof chunk, &n, nullptr) || n == 0)
        return ErrorStatus(name_ + " exited unexpectedly" + StderrTail());
      buf_.append(chunk, n);
    }
  }

 private:
  std::string StderrTail() {
    // The child may still be writing its last words: give the reader a moment.
    WaitForSingleObject(pi_.hProcess, 200);
    std::lock_guard<std::mutex> lock(err_mu_);
    std::string text = err_text_;
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    return text.empty() ? std::string() : ": " + text;
  }

  PROCESS_INFORMATION pi_;
  HANDLE in_, out_;
  std::string name_;
  std::string buf_;
  std::thread stderr_reader_;
  std::mutex err_mu_;
  std::string err_text_;  // the tail of what the child wrote to stderr
};

// A pipe whose `parent_end` stays ours (not inherited by the child).
bool MakePipe(HANDLE* read_end, HANDLE* write_end, bool parent_reads) {
  SECURITY_ATTRIBUTES sa{sizeof sa, nullptr, TRUE};
  if (!CreatePipe(read_end, write_end, &sa, 0)) return false;
  HANDLE parent_end = parent_reads ? *read_end : *write_end;
  return SetHandleInformation(parent_end, HANDLE_FLAG_INHERIT, 0);
}

}  // namespace

Result<std::unique_ptr<Subprocess>> Subprocess::Start(const std::vector<std::string>& argv) {
  if (argv.empty()) return ErrorStatus("no program to start");
  HANDLE in_r, in_w, out_r, out_w, err_r, err_w;
  if (!MakePipe(&in_r, &in_w, false)) return ErrorStatus(LastError("CreatePipe"));
  if (!MakePipe(&out_r, &out_w, true)) {
    CloseHandle(in_r);
    CloseHandle(in_w);
    return ErrorStatus(LastError("CreatePipe"));
  }
  if (!MakePipe(&err_r, &err_w, true)) {
    for (HANDLE h : {in_r, in_w, out_r, out_w}) CloseHandle(h);
    return ErrorStatus(LastError("CreatePipe"));
  }
  std::string command_line;
  for (const std::string& a : argv) {
    if (!command_line.empty()) command_line += ' ';
    AppendQuoted(a, &command_line);
  }
  std::wstring wide = Widen(command_line);
  STARTUPINFOW si{};
  si.cb = sizeof si;
  si.dwFlags = STARTF_USESTDHANDLES;
  si.hStdInput = in_r;
  si.hStdOutput = out_w;
  si.hStdError = err_w;
  PROCESS_INFORMATION pi{};
  // lpApplicationName stays null so the program is looked up in PATH (and
  // ".exe" appended), as posix_spawnp does on the other platforms.
  BOOL ok = CreateProcessW(nullptr, wide.data(), nullptr, nullptr, TRUE, CREATE_NO_WINDOW, nullptr,
                           nullptr, &si, &pi);
  std::string start_error = ok ? std::string() : LastError(("starting " + argv[0]).c_str());
  // The child's ends are the child's now (or nobody's).
  for (HANDLE h : {in_r, out_w, err_w}) CloseHandle(h);
  if (!ok) {
    for (HANDLE h : {in_w, out_r, err_r}) CloseHandle(h);
    return ErrorStatus(start_error);
  }
  return std::unique_ptr<Subprocess>(new WinSubprocess(pi, in_w, out_r, err_r, argv[0]));
}

}  // namespace fathom::symbols
