// The local end of a recording: the output path is checked before anything
// runs on the target (a recording that cannot be saved should not be made),
// and the finished trace is pulled into a temporary name next to it, renamed
// when complete. Whatever goes wrong, the message says where the trace is:
// on the target, in OUTPUT.partial, or nowhere.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "record/target_shell.h"

namespace fathom::record {

// OK when a trace can be written to `path`: its directory exists and takes
// new files, and `path` is not a directory or another non-regular file.
// The error names the path and what is wrong with it.
Status CheckOutputPath(const std::string& path);

// The name a pull writes to before the rename: OUTPUT.part.
std::string TempOutputPath(const std::string& path);

// Pulls `remote` into TempOutputPath(`local`), then renames it to `local`.
// A failed pull keeps what arrived as LOCAL.partial; an abandoned one
// (`cancel`) removes the temp. Either way the error says that the trace is
// still at `remote` on the target, which the caller leaves in place.
Status PullTrace(TargetShell& shell, const std::string& remote, const std::string& local,
                 const std::function<void(uint64_t)>& progress, const CancelToken& cancel);

}  // namespace fathom::record
