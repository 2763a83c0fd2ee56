// Interned strings: every string column stores a 32-bit StringId into one pool,
// so equal strings are stored once and compare by id.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace fathom {

using StringId = uint32_t;
inline constexpr StringId kNullStringId = 0;  // SQL NULL

class StringPool {
 public:
  StringPool();
  StringPool(const StringPool&) = delete;
  StringPool& operator=(const StringPool&) = delete;

  // Returns the id of `s`, adding it if new. The empty string has its own id
  // (it is not NULL).
  StringId Intern(std::string_view s);
  // Id of `s` if present, else kNullStringId.
  StringId Find(std::string_view s) const;
  std::string_view Get(StringId id) const { return views_[id]; }
  size_t size() const { return views_.size(); }
  size_t bytes_used() const { return bytes_used_; }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::string_view Store(std::string_view s);

  std::vector<std::unique_ptr<char[]>> blocks_;
  std::vector<std::unique_ptr<char[]>> big_strings_;
  size_t block_used_ = 0;
  size_t block_size_ = 0;
  size_t bytes_used_ = 0;
  std::vector<std::string_view> views_;
  std::unordered_map<std::string_view, StringId, Hash, std::equal_to<>> index_;
};

}  // namespace fathom
