#include "device/jvmti/alloc_log_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <chrono>

namespace fathom::jvmti {
namespace {

// Big enough that a write(2) is rare (one per few thousand new lines), small
// enough to lose little if the VM is killed without VMDeath.
constexpr size_t kFlushBytes = 64 << 10;
constexpr auto kFlushPeriod = std::chrono::seconds(1);

}  // namespace

AllocLogWriter::~AllocLogWriter() { Close(""); }

std::string AllocLogWriter::Open(const std::string& path, const std::string& header) {
  fd_ = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) return "cannot create " + path + ": " + strerror(errno);
  buf_.reserve(kFlushBytes * 2);
  Put(header);
  Put("\n");
  Flush();
  stop_flusher_ = false;
  flusher_ = std::thread([this] { RunFlusher(); });
  return {};
}

void AllocLogWriter::RunFlusher() {
  std::unique_lock<std::mutex> wait_lock(flusher_mu_);
  while (!flusher_cv_.wait_for(wait_lock, kFlushPeriod, [this] { return stop_flusher_; })) {
    // Never wait for mu_: the agent may hold it while stopping this thread,
    // and a busy second is flushed by kFlushBytes anyway.
    std::unique_lock<std::mutex> lock(mu_, std::try_to_lock);
    if (lock.owns_lock() && !buf_.empty()) Flush();
  }
}

void AllocLogWriter::StopFlusher() {
  if (!flusher_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(flusher_mu_);
    stop_flusher_ = true;
  }
  flusher_cv_.notify_all();
  flusher_.join();
}

void AllocLogWriter::Put(std::string_view s) {
  buf_.append(s);
  if (buf_.size() >= kFlushBytes) Flush();
}

void AllocLogWriter::PutKey(char tag, int64_t key) {
  char tmp[24];
  int n = snprintf(tmp, sizeof(tmp), "%c%lld,", tag, static_cast<long long>(key));
  buf_.append(tmp, static_cast<size_t>(n));
}

void AllocLogWriter::Flush() {
  size_t off = 0;
  while (fd_ >= 0 && off < buf_.size()) {
    ssize_t n = write(fd_, buf_.data() + off, buf_.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // disk full: drop the buffer rather than block the VM
    off += static_cast<size_t>(n);
  }
  buf_.clear();
}

int64_t AllocLogWriter::AddFrame(uintptr_t id, std::string_view text) {
  int64_t key = next_key_++;
  frames_.emplace(id, key);
  PutKey('+', key);
  Put(text);
  Put("\n");
  return key;
}

uint32_t AllocLogWriter::ClassIndex(std::string_view class_text) {
  auto [it, added] =
      class_index_.try_emplace(std::string(class_text), static_cast<uint32_t>(classes_.size()));
  if (added) classes_.emplace_back(class_text);
  return it->second;
}

int64_t AllocLogWriter::TypeKey(std::string_view thread, uint32_t class_index, int64_t size) {
  // Thread names may hold any byte but NUL; the key cannot collide.
  scratch_.assign(thread);
  scratch_.push_back('\0');
  scratch_.append(std::to_string(class_index));
  scratch_.push_back('\0');
  scratch_.append(std::to_string(size));
  auto [it, added] = types_.try_emplace(scratch_, next_key_);
  if (!added) return it->second;
  int64_t key = next_key_++;
  char sz[64];
  snprintf(sz, sizeof(sz), "], size[%lld, hex: 0x%llx]\n", static_cast<long long>(size),
           static_cast<unsigned long long>(size));
  PutKey('+', key);
  Put("jthread[");
  Put(thread);
  Put("], jclass[");
  Put(class_index < classes_.size() ? classes_[class_index] : std::string("? file: ?"));
  Put(sz);
  return key;
}

void AllocLogWriter::Sample(const std::vector<int64_t>& stack) {
  auto [it, added] = stacks_.try_emplace(stack, next_key_);
  char tmp[24];
  if (added) {
    ++next_key_;
    PutKey('=', it->second);
    for (size_t i = 0; i < stack.size(); ++i) {
      int n = snprintf(tmp, sizeof(tmp), i ? ";%lld" : "%lld", static_cast<long long>(stack[i]));
      buf_.append(tmp, static_cast<size_t>(n));
    }
    buf_.push_back('\n');
  }
  int n = snprintf(tmp, sizeof(tmp), "%lld\n", static_cast<long long>(it->second));
  Put(std::string_view(tmp, static_cast<size_t>(n)));
  ++samples_;
}

void AllocLogWriter::Close(const std::string& footer) {
  StopFlusher();
  if (fd_ < 0) return;
  if (!footer.empty()) {
    buf_.append(footer);
    buf_.push_back('\n');
  }
  Flush();
  close(fd_);
  fd_ = -1;
}

}  // namespace fathom::jvmti
