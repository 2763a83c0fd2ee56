// Streaming HPROF record reader: fed consecutive pieces of the file, it
// consumes every whole unit (the header, a top-level record, one heap dump
// sub-record) and says how many bytes it used; the caller keeps the rest and
// feeds them again with the next piece. Large payloads that the tables do not
// need (primitive array contents, unknown records) are skipped across pieces
// without being buffered.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/import/hprof/content_hash.h"
#include "core/import/hprof/hprof_dump.h"

namespace fathom::hprof {

class Reader {
 public:
  explicit Reader(Dump* dump) : dump_(dump) {}

  // Also hash primitive array contents and note finished Activities
  // (Dump::content_hashes / finished_activities) for the heap explorer's
  // contents pass (hprof_contents.h); a table load does not need them.
  void set_read_contents(bool on) { read_contents_ = on; }
  // Reads whole units of [data, data + size), whose first byte is at file
  // offset `offset`. Returns the bytes consumed. After an error, consumes
  // everything and reads nothing more.
  size_t Feed(const uint8_t* data, size_t size, uint64_t offset);

  // Decodes the references of instances read before their class layout.
  void ResolvePending();

  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  uint64_t error_offset() const { return error_offset_; }
  bool header_read() const { return header_done_; }
  // Bytes a record still announced when the input ended (0 when it ended
  // between records).
  // Payload bytes a record still announced (skipped contents, array elements).
  uint64_t skip_left() const { return skip_ + array_left_ * dump_->id_size; }
  bool inside_segment() const { return segment_left_ > 0; }
  uint64_t segment_left() const { return static_cast<uint64_t>(segment_left_); }

 private:
  enum class Step { kDone, kMore, kBad };
  struct ObjectField {
    uint32_t offset;
    uint32_t label;
  };
  struct Layout {
    std::vector<ObjectField> fields;
    // Offsets of android.app.Activity's boolean mDestroyed / mFinished.
    std::vector<uint32_t> finished_flags;
    // Offsets of the primitive fields the contents pass reads, or -1:
    // java.lang.String's byte `coder`, android.graphics.Bitmap's int
    // mWidth / mHeight and long mNativePtr.
    int64_t coder = -1, width = -1, height = -1, native_ptr = -1;
    bool bitmap = false;
  };

  Step ReadHeader(const uint8_t* p, size_t n, size_t* used);
  Step ReadRecord(const uint8_t* p, size_t n, size_t* used);
  Step ReadSubRecord(const uint8_t* p, size_t n, size_t* used);
  Step ReadClassDump(const uint8_t* p, size_t n, size_t* used);
  Step ReadInstance(const uint8_t* p, size_t n, size_t* used);
  Step ReadObjectArray(const uint8_t* p, size_t n, size_t* used);
  size_t ReadArrayElements(const uint8_t* p, size_t n);
  Step ReadPrimitiveArray(const uint8_t* p, size_t n, size_t* used, bool has_data);
  void Fail(std::string message, uint64_t offset);

  const Layout* LayoutOf(uint64_t class_id);
  uint32_t Label(const std::string& qualified);
  void ReadContentFields(size_t index, const Layout& layout, const uint8_t* data, size_t size);
  void AddInstanceRefs(size_t index, ObjectRec& o, const Layout& layout, const uint8_t* data,
                       size_t size);
  std::string StringOf(uint64_t id) const;

  Dump* dump_;
  bool header_done_ = false;
  uint64_t skip_ = 0;  // payload bytes still to pass over
  // While skip_ passes a primitive array's contents: they are hashed.
  bool read_contents_ = false;
  bool hashing_ = false;
  uint64_t unit_offset_ = 0;  // file offset of the unit being read
  ContentHasher hasher_;
  // An object array's elements are read as they stream by, so one larger
  // than a chunk is never buffered whole.
  uint64_t array_left_ = 0;   // elements not read yet
  uint64_t array_next_ = 0;   // index of the next element
  size_t array_object_ = 0;   // the array's Dump::objects index
  int64_t segment_left_ = 0;  // bytes of the current heap dump segment not yet read
  uint16_t heap_ = 0;
  std::string error_;
  uint64_t error_offset_ = 0;
  std::unordered_map<uint64_t, Layout> layouts_;  // complete layouts only
  std::unordered_map<std::string, uint32_t> label_ids_;
};

}  // namespace fathom::hprof
