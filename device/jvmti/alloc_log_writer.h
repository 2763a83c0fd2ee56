// Interns thread/type/size records, frames and stacks and writes them in the
// tiallocsample text format through one buffered file descriptor. Not
// thread-safe by itself: the agent holds mutex() around every call, so keys
// are written before the lines that use them.
//
// A VM killed without VMDeath (ART on `am force-stop`/SIGTERM, any VM on
// SIGKILL) never calls Close: a flusher thread writes the buffer out once a
// second, so such a run loses at most the last second of lines.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

namespace fathom::jvmti {

class AllocLogWriter {
 public:
  ~AllocLogWriter();
  // Creates (truncates) `path` and writes `header` (a '#' line). Returns an
  // empty string or the error.
  std::string Open(const std::string& path, const std::string& header);
  std::mutex& mutex() { return mu_; }
  bool is_open() const { return fd_ >= 0; }

  // Key of the frame of method `id`, or -1 when not cached yet.
  int64_t CachedFrame(uintptr_t id) const {
    auto it = frames_.find(id);
    return it == frames_.end() ? -1 : it->second;
  }
  int64_t AddFrame(uintptr_t id, std::string_view text);
  // Index of a class's "SIG file: FILE" text (for the agent's class tags).
  uint32_t ClassIndex(std::string_view class_text);
  // Key of the thread/type/size record.
  int64_t TypeKey(std::string_view thread, uint32_t class_index, int64_t size);
  // One sample of (type key, frame keys outermost first).
  void Sample(const std::vector<int64_t>& stack);
  // Writes `footer` (a '#' line), flushes and closes. Later calls are no-ops.
  // May be called with mutex() held.
  void Close(const std::string& footer);

  uint64_t samples() const { return samples_; }

 private:
  struct VecHash {
    size_t operator()(const std::vector<int64_t>& v) const {
      uint64_t h = 1469598103934665603ull;
      for (int64_t x : v) h = (h ^ static_cast<uint64_t>(x)) * 1099511628211ull;
      return h;
    }
  };
  void Put(std::string_view s);
  void PutKey(char tag, int64_t key);
  void Flush();
  void RunFlusher();
  void StopFlusher();

  std::mutex mu_;
  int fd_ = -1;
  std::string buf_;
  int64_t next_key_ = 0;
  uint64_t samples_ = 0;
  std::unordered_map<uintptr_t, int64_t> frames_;
  std::unordered_map<std::string, uint32_t> class_index_;
  std::vector<std::string> classes_;
  std::unordered_map<std::string, int64_t> types_;
  std::unordered_map<std::vector<int64_t>, int64_t, VecHash> stacks_;
  std::string scratch_;
  // The periodic flush (see the top): it only ever try_locks mu_, so Close
  // can stop it while holding mu_.
  std::thread flusher_;
  std::mutex flusher_mu_;
  std::condition_variable flusher_cv_;
  bool stop_flusher_ = false;
};

}  // namespace fathom::jvmti
