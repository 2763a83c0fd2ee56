// fathom-cli subcommands. Each returns the process exit code.
#pragma once

#include <string>
#include <vector>

namespace fathom {
class TraceProcessor;
}

namespace fathom::cli {

// `info`'s summary of an already loaded trace (record prints it after pulling).
void PrintInfo(TraceProcessor& tp, const std::string& path);
int RunInfo(const std::vector<std::string>& args);
int RunQuery(const std::vector<std::string>& args);
int RunProfiles(const std::vector<std::string>& args);
int RunFlamegraph(const std::vector<std::string>& args);
int RunDevices(const std::vector<std::string>& args);
int RunShell(const std::vector<std::string>& args);
int RunPush(const std::vector<std::string>& args);
int RunPull(const std::vector<std::string>& args);
int RunConnect(const std::vector<std::string>& args, bool connect);  // false: disconnect
int RunRecord(const std::vector<std::string>& args, const char* argv0);
int RunHeapprofile(const std::vector<std::string>& args);
int RunSymbolize(const std::vector<std::string>& args);
int RunDeobfuscate(const std::vector<std::string>& args);

}  // namespace fathom::cli
