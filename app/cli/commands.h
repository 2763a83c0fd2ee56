// fathom-cli subcommands. Each returns the process exit code.
#pragma once

#include <string>
#include <vector>

namespace fathom::cli {

int RunInfo(const std::vector<std::string>& args);
int RunQuery(const std::vector<std::string>& args);
int RunDevices(const std::vector<std::string>& args);
int RunRecord(const std::vector<std::string>& args, const char* argv0);


}  // namespace fathom::cli
