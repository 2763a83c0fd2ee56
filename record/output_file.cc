#include "record/output_file.h"

#include <filesystem>
#include <fstream>

#include "base/utf8_path.h"

namespace fathom::record {
namespace fs = std::filesystem;

std::string TempOutputPath(const std::string& path) { return path + ".part"; }

Status CheckOutputPath(const std::string& path) {
  if (path.empty()) return ErrorStatus("no output file given (-o OUT)");
  std::error_code ec;
  const fs::path p = PathFromUtf8(path);
  const fs::file_status st = fs::status(p, ec);
  if (fs::is_directory(st)) {
    return ErrorStatus(path + " is a directory: give a file name, e.g. " +
                       PathToUtf8(p / "trace.pftrace"));
  }
  // Renaming over a device node or a fifo (as root, /dev/null) would replace it.
  if (fs::exists(st) && !fs::is_regular_file(st))
    return ErrorStatus(path + " exists and is not a regular file");
  fs::path dir = p.parent_path();
  if (dir.empty()) dir = ".";
  const fs::file_status dir_st = fs::status(dir, ec);
  if (!fs::exists(dir_st))
    return ErrorStatus(path + ": the directory " + PathToUtf8(dir) + " does not exist");
  if (!fs::is_directory(dir_st))
    return ErrorStatus(path + ": " + PathToUtf8(dir) + " is not a directory");
  // The one reliable test of "can create files here" (permissions, ACLs, a
  // read-only mount, root or not) is to create one: the temp the pull uses.
  // Appending leaves an existing temp as it was.
  const fs::path temp = PathFromUtf8(TempOutputPath(path));
  const bool temp_existed = fs::exists(temp, ec);
  {
    std::ofstream probe(temp, std::ios::binary | std::ios::app);
    if (!probe)
      return ErrorStatus(path + ": cannot create files in " + PathToUtf8(dir) + " (not writable)");
  }
  if (!temp_existed) fs::remove(temp, ec);
  return Status::Ok();
}

namespace {

std::string StillOnTarget(const std::string& remote) {
  return "the trace is still on the target at " + remote + " (fetch it with `fathom-cli pull`)";
}

}  // namespace

Status PullTrace(TargetShell& shell, const std::string& remote, const std::string& local,
                 const std::function<void(uint64_t)>& progress, const CancelToken& cancel) {
  const std::string part = TempOutputPath(local);
  Status st = shell.Pull(remote, part, progress, Deadline::After(Millis(600000)), cancel);
  std::error_code ec;
  const fs::path part_path = PathFromUtf8(part);
  const bool got_bytes = fs::exists(part_path, ec) && fs::file_size(part_path, ec) > 0;
  if (!st.ok() && cancel.cancelled()) {
    // Abandoned on purpose: an incomplete file would only be mistaken for a trace.
    fs::remove(part_path, ec);
    return ErrorStatus("pull abandoned; removed the incomplete " + part + "; " +
                       StillOnTarget(remote));
  }
  if (!st.ok() && got_bytes) {
    fs::rename(part_path, PathFromUtf8(local + ".partial"), ec);
    return ErrorStatus("pulling the trace failed (" + st.message() + "); what arrived is in " +
                       local + ".partial; " + StillOnTarget(remote));
  }
  if (!st.ok()) {
    fs::remove(part_path, ec);
    return ErrorStatus("pulling the trace failed: " + st.message() + "; " + StillOnTarget(remote));
  }
  if (!got_bytes) {
    fs::remove(part_path, ec);
    return ErrorStatus("the recorder wrote an empty trace (" + remote + ", left on the target)");
  }
  fs::rename(part_path, PathFromUtf8(local), ec);
  if (ec) {
    // The trace is complete: keep it under the temp name rather than lose it.
    return ErrorStatus("the trace was pulled into " + part + " but cannot be renamed to " + local +
                       ": " + ec.message());
  }
  return Status::Ok();
}

}  // namespace fathom::record
