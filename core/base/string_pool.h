// Interned strings: every string column stores a 32-bit StringId into one pool,
// so equal strings are stored once and compare by id.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
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
  // Short, fast string hash (8 bytes per step); quality is enough for an
  // open-addressing table that also compares the stored 32-bit hash.
  static uint64_t HashOf(std::string_view s);
  std::string_view Store(std::string_view s);
  void Grow();

  std::vector<std::unique_ptr<char[]>> blocks_;
  std::vector<std::unique_ptr<char[]>> big_strings_;
  size_t block_used_ = 0;
  size_t block_size_ = 0;
  size_t bytes_used_ = 0;
  std::vector<std::string_view> views_;
  // Open addressing, linear probing: each slot holds (hash high bits, id);
  // id 0 marks an empty slot (id 0 is NULL and never indexed).
  struct Slot {
    uint32_t hash;
    StringId id;
  };
  std::vector<Slot> slots_;
  size_t mask_ = 0;
};

}  // namespace fathom
