// symbols::Subprocess on Windows (core/symbols/subprocess_win.cc), run under
// Wine: the program starts a second copy of itself as the child, so the test
// needs nothing but the C++ runtime. Checks line I/O both ways, argument
// quoting (spaces, quotes, trailing backslashes, non-ASCII), the child's stderr
// in the error when it exits, and a clear error for a missing program.
#include <windows.h>
// after windows.h
#include <shellapi.h>

#include <cstdio>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "core/symbols/subprocess.h"

using fathom::symbols::Subprocess;

namespace {

int failures = 0;

void Check(bool ok, const std::string& what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAIL", what.c_str());
  if (!ok) ++failures;
}

// The child's arguments in UTF-8, as the parent gave them: main()'s argv is
// in the ANSI code page, which cannot hold every character.
std::vector<std::string> Utf8Args() {
  int n = 0;
  wchar_t** wide = CommandLineToArgvW(GetCommandLineW(), &n);
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) {
    int len = WideCharToMultiByte(CP_UTF8, 0, wide[i], -1, nullptr, 0, nullptr, nullptr);
    std::string s(static_cast<size_t>(len > 0 ? len - 1 : 0), '\0');
    if (len > 1) WideCharToMultiByte(CP_UTF8, 0, wide[i], -1, s.data(), len, nullptr, nullptr);
    out.push_back(s);
  }
  LocalFree(wide);
  return out;
}

// The child: echoes its arguments, then each stdin line, until "bye".
int Child() {
  std::vector<std::string> args = Utf8Args();
  for (size_t i = 2; i < args.size(); ++i) std::cout << "arg:" << args[i] << "\n";
  std::cout << "args-done" << std::endl;
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line == "bye") {
      std::cerr << "farewell from the child" << std::endl;
      return 3;
    }
    std::cout << "got:" << line << std::endl;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--child") return Child();

  const std::vector<std::string> args = {
      "plain", "two words", "quote\"inside", "trailing\\", "dir\\with space\\", "", "caf\xc3\xa9"};
  std::vector<std::string> argv_child = {argv[0], "--child"};
  argv_child.insert(argv_child.end(), args.begin(), args.end());
  auto started = Subprocess::Start(argv_child);
  Check(started.ok(), "start a child");
  if (!started.ok()) return 1;
  std::unique_ptr<Subprocess> child = std::move(*started);
  for (const std::string& a : args) {
    auto line = child->ReadLine();
    Check(line.ok() && *line == "arg:" + a, "argument [" + a + "] arrives whole");
  }
  auto done = child->ReadLine();
  Check(done.ok() && *done == "args-done", "argument list ends");

  // 20,000 lines (~200 KB) written in one go, far more than a pipe buffer:
  // the child echoes as it reads, so this also checks that neither side stalls
  // once both pipes fill. Written from a second thread, as a reader must drain
  // stdout while the writer is still blocked.
  std::string many;
  for (int i = 0; i < 20000; ++i) many += "line " + std::to_string(i) + "\n";
  std::thread writer([&] { Check(child->Write(many).ok(), "write 20,000 lines"); });
  int echoed = 0;
  for (int i = 0; i < 20000; ++i) {
    auto l = child->ReadLine();
    if (!l.ok() || *l != "got:line " + std::to_string(i)) break;
    ++echoed;
  }
  writer.join();
  Check(echoed == 20000, "all 20,000 lines echoed in order (" + std::to_string(echoed) + ")");

  Check(child->Write("bye\n").ok(), "ask the child to exit");
  auto after = child->ReadLine();
  Check(
      !after.ok() && after.status().message().find("farewell from the child") != std::string::npos,
      "reading after the child exited fails with its stderr: " +
          (after.ok() ? std::string("(read a line)") : after.status().message()));
  child.reset();

  auto missing = Subprocess::Start({"fathom-no-such-program-4711"});
  Check(!missing.ok() &&
            missing.status().message().find("fathom-no-such-program-4711") != std::string::npos,
        "a missing program is named in the error: " +
            (missing.ok() ? std::string("(started)") : missing.status().message()));

  std::printf("%d failure(s)\n", failures);
  return failures == 0 ? 0 : 1;
}
