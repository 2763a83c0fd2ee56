#include "trace_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gen/perfetto_fields.h"
#include "proto_writer.h"

namespace fathom::device {
namespace {

int64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

// Tag of Trace.packet (field 1, length-delimited) followed by the packet's length.
void AppendFrame(std::string* out, size_t packet_size) {
  out->push_back(static_cast<char>((pf::Trace::kPacketFieldNumber << 3) | 2));
  uint64_t v = packet_size;
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

}  // namespace

Result<std::unique_ptr<TraceWriter>> TraceWriter::Open(const std::string& path,
                                                       const TraceWriterOptions& options) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return ErrorStatus("cannot create " + path + ": " + strerror(errno));
  return std::unique_ptr<TraceWriter>(new TraceWriter(fd, path, options));
}

TraceWriter::TraceWriter(int fd, std::string path, const TraceWriterOptions& options)
    : fd_(fd), path_(std::move(path)), options_(options), last_flush_ns_(MonotonicNs()) {
  buffer_.reserve(options_.max_buffer_bytes + 4096);
}

TraceWriter::~TraceWriter() { Close(); }

Status TraceWriter::AppendPacket(std::string_view packet) {
  std::lock_guard<std::mutex> lock(mu_);
  if (fd_ < 0) return ErrorStatus("trace writer for " + path_ + " is closed");
  size_t before = buffer_.size();
  AppendFrame(&buffer_, packet.size());
  size_t framed = buffer_.size() - before + packet.size();
  if (options_.max_file_size_bytes && file_size_ + before + framed > options_.max_file_size_bytes) {
    buffer_.resize(before);
    full_ = true;
    return ErrorStatus(path_ + " reached max_file_size_bytes");
  }
  buffer_.append(packet);
  buffered_packets_++;
  if (buffer_.size() >= options_.max_buffer_bytes) return FlushLocked();
  return Status::Ok();
}

Status TraceWriter::MaybeFlush() {
  std::lock_guard<std::mutex> lock(mu_);
  if (options_.flush_period_ms == 0 || fd_ < 0) return Status::Ok();
  if (MonotonicNs() - last_flush_ns_ < int64_t{options_.flush_period_ms} * 1000000)
    return Status::Ok();
  return FlushLocked();
}

Status TraceWriter::Flush() {
  std::lock_guard<std::mutex> lock(mu_);
  return FlushLocked();
}

Status TraceWriter::FlushLocked() {
  last_flush_ns_ = MonotonicNs();
  if (fd_ < 0 || buffer_.empty()) return Status::Ok();
  size_t done = 0;
  while (done < buffer_.size()) {
    ssize_t n = write(fd_, buffer_.data() + done, buffer_.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      std::string why = n < 0 ? strerror(errno) : "short write";
      // Keep the file on a packet boundary: drop the partial flush.
      if (ftruncate(fd_, static_cast<off_t>(file_size_)) == 0)
        lseek(fd_, static_cast<off_t>(file_size_), SEEK_SET);
      buffer_.clear();
      buffered_packets_ = 0;
      return ErrorStatus("cannot write " + path_ + ": " + why);
    }
    done += static_cast<size_t>(n);
  }
  file_size_ += buffer_.size();
  packets_written_ += buffered_packets_;
  buffered_packets_ = 0;
  buffer_.clear();
  flushes_++;
  if (options_.sync_on_flush) fdatasync(fd_);
  return Status::Ok();
}

Status TraceWriter::Close() {
  std::lock_guard<std::mutex> lock(mu_);
  if (fd_ < 0) return Status::Ok();
  Status status = FlushLocked();
  if (close(fd_) != 0 && status.ok())
    status = ErrorStatus("cannot close " + path_ + ": " + strerror(errno));
  fd_ = -1;
  return status;
}

bool TraceWriter::full() const {
  std::lock_guard<std::mutex> lock(mu_);
  return full_;
}
uint64_t TraceWriter::bytes_written() const {
  std::lock_guard<std::mutex> lock(mu_);
  return file_size_;
}
uint64_t TraceWriter::packets_written() const {
  std::lock_guard<std::mutex> lock(mu_);
  return packets_written_;
}
uint64_t TraceWriter::flush_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return flushes_;
}

}  // namespace fathom::device
