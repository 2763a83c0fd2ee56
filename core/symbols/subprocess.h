// A child process with its stdin and stdout connected to us through pipes,
// used to keep one llvm-symbolizer running for many addresses. The only place
// in core/symbols that needs OS calls: subprocess_posix.cc (Linux, macOS) and
// subprocess_win.cc (CreateProcessW and pipes).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/status.h"

namespace fathom::symbols {

class Subprocess {
 public:
  virtual ~Subprocess() = default;
  // Starts argv[0] (looked up in PATH when it has no '/'). Fails when the
  // program cannot be started (not installed, not executable).
  static Result<std::unique_ptr<Subprocess>> Start(const std::vector<std::string>& argv);

  // Writes all of `data` to the child's stdin.
  virtual Status Write(const std::string& data) = 0;
  // Reads one line from the child's stdout, without the '\n'. Fails at end of
  // file (the child exited) with what it wrote to stderr, if anything.
  virtual Result<std::string> ReadLine() = 0;
};

}  // namespace fathom::symbols
