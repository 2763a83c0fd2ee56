#include "core/base/string_pool.h"

#include <cstring>

namespace fathom {
namespace {
constexpr size_t kBlockSize = 1 << 20;
}

StringPool::StringPool() {
  views_.emplace_back();  // id 0 = NULL
  index_.reserve(4096);
}

std::string_view StringPool::Store(std::string_view s) {
  if (s.empty()) return std::string_view("", 0);
  if (s.size() > kBlockSize / 4) {
    // Large strings get their own allocation so they do not waste a shared block.
    big_strings_.emplace_back(new char[s.size()]);
    memcpy(big_strings_.back().get(), s.data(), s.size());
    bytes_used_ += s.size();
    return std::string_view(big_strings_.back().get(), s.size());
  }
  if (block_size_ == 0 || block_used_ + s.size() > block_size_) {
    blocks_.emplace_back(new char[kBlockSize]);
    block_size_ = kBlockSize;
    block_used_ = 0;
  }
  char* dst = blocks_.back().get() + block_used_;
  memcpy(dst, s.data(), s.size());
  block_used_ += s.size();
  bytes_used_ += s.size();
  return std::string_view(dst, s.size());
}

StringId StringPool::Intern(std::string_view s) {
  auto it = index_.find(s);
  if (it != index_.end()) return it->second;
  std::string_view stored = Store(s);
  StringId id = static_cast<StringId>(views_.size());
  views_.push_back(stored);
  index_.emplace(stored, id);
  return id;
}

StringId StringPool::Find(std::string_view s) const {
  auto it = index_.find(s);
  return it == index_.end() ? kNullStringId : it->second;
}

}  // namespace fathom
