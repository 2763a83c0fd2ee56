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
    // Appends another builder's args after this one's (same tracker).
    Builder& Append(Builder&& other);
    // Writes the rows and returns their arg_set_id (nullopt when empty).
    std::optional<uint32_t> Commit();
    // Like Commit(), but the new set starts with a copy of the rows of
    // `base` (an already committed set), so args that arrive after a row's
    // set was written (e.g. on a slice's end event) join it. Returns `base`
    // unchanged when there is nothing to add.
    std::optional<uint32_t> CommitMerged(std::optional<uint32_t> base);

   private:
    friend class ArgsTracker;
    explicit Builder(ArgsTracker* t) : tracker_(t) {}
    void WriteRows(uint32_t set);
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
  // Reserves an arg_set_id for callers that write args rows directly (the
  // ftrace raw table's hot path, with pre-interned keys). Rows must be written
  // before the next set is committed so the args table stays sorted by set.
  // Import only (a provisional id, see ArgsTable): the per-event hot path
  // skips NewSetId's check.
  uint32_t AllocateArgSetId() { return next_arg_set_id_++; }

 private:
  friend class Builder;
  // Provisional ids while importing (ArgsTable gives the final ones); once
  // the sets are final, a late set's id is its first row's id, like theirs.
  uint32_t NewSetId() {
    return storage_->args.finalized() ? storage_->args.row_count() : next_arg_set_id_++;
  }
  TraceStorage* storage_;
  uint32_t next_arg_set_id_ = 1;  // 0 is never used, as upstream
  StringId type_names_[7];
  StringId bool_names_[2];
};

}  // namespace fathom
