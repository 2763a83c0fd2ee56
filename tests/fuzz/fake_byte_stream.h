// A ByteStream whose device side is a fixed byte string, for fuzzing the
// clients that run on top of one (sync, shell). Reads hand out the bytes in
// pieces of a chosen size (records split across WRTE payloads) and report
// the end of the stream once they are used up, so a client waiting for more
// gets an end of stream at once instead of blocking. Writes are dropped.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>

#include "adb/byte_stream.h"

namespace fathom::fuzz {

class FakeByteStream : public adb::ByteStream {
 public:
  FakeByteStream(std::string_view device_bytes, size_t piece)
      : in_(device_bytes), piece_(std::max<size_t>(piece, 1)) {}

  Status Write(std::string_view data, adb::Deadline, const adb::CancelToken&) override {
    if (closed_) return ErrorStatus("fake stream closed");
    written_ += data.size();
    return Status::Ok();
  }
  Result<size_t> Read(std::string* out, adb::Deadline, const adb::CancelToken&) override {
    if (closed_) return ErrorStatus("fake stream closed");
    size_t n = std::min(piece_, in_.size());
    out->append(in_.substr(0, n));
    in_.remove_prefix(n);
    return n;
  }
  void Close() override { closed_ = true; }

  size_t remaining() const { return in_.size(); }
  size_t written() const { return written_; }

 private:
  std::string_view in_;
  size_t piece_;
  size_t written_ = 0;
  bool closed_ = false;
};

}  // namespace fathom::fuzz
