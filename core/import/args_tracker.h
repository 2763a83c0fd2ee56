// Builds arg sets (the `args` table): collect key/values, then Commit() to get
// the arg_set_id to store on the owning row.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/storage/trace_storage.h"

namespace fathom {

class ArgsTracker {
 public:
  explicit ArgsTracker(TraceStorage* storage);

  class Builder {
   public:
    // `key` is the full key (with [N] for arrays); flat_key drops the indices.
    Builder& AddInt(std::string_view key, int64_t v);
    Builder& AddUint(std::string_view key, uint64_t v);
    Builder& AddBool(std::string_view key, bool v);
    Builder& AddReal(std::string_view key, double v);
    Builder& AddString(std::string_view key, std::string_view v);
    Builder& AddString(std::string_view key, StringId v);
    Builder& AddPointer(std::string_view key, uint64_t v);
    Builder& AddJson(std::string_view key, std::string_view v);
    bool empty() const { return args_.empty(); }
    // Writes the rows and returns their arg_set_id (nullopt when empty).
    std::optional<uint32_t> Commit();

   private:
    friend class ArgsTracker;
    explicit Builder(ArgsTracker* t) : tracker_(t) {}
    struct Arg {
      StringId key;
      StringId flat_key;
      uint8_t type;  // ValueType
      int64_t i = 0;
      double d = 0;
      StringId s = kNullStringId;
    };
    Builder& Add(std::string_view key, Arg arg);
    ArgsTracker* tracker_;
    std::vector<Arg> args_;
  };

  Builder NewSet() { return Builder(this); }
  uint32_t next_arg_set_id() const { return next_arg_set_id_; }

 private:
  friend class Builder;
  TraceStorage* storage_;
  uint32_t next_arg_set_id_ = 1;  // 0 is never used, as upstream
  StringId type_names_[7];
};

}  // namespace fathom
