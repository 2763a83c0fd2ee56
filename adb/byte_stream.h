// A bidirectional byte stream to one device service, whichever way it is reached: an adb
// stream multiplexed on our own Connection, or a socket bound to a device by the adb server.
// The shell v2 and sync clients are written against this so they work over both.
#pragma once

#include <string>
#include <string_view>

#include "adb/cancel.h"
#include "base/status.h"

namespace fathom::adb {

class ByteStream {
 public:
  virtual ~ByteStream() = default;
  virtual Status Write(std::string_view data, Deadline deadline, const CancelToken& cancel) = 0;
  // Appends at least one byte to *out, or returns 0 at end of stream.
  virtual Result<size_t> Read(std::string* out, Deadline deadline, const CancelToken& cancel) = 0;
  virtual void Close() = 0;
};

}  // namespace fathom::adb
