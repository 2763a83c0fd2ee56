// What the HPROF reader keeps of a dump until it is written to the tables:
// names, classes and, per object, only what the heap_graph_* rows need (class,
// size, root, heap, outgoing references). Instance field bytes are decoded
// into references as they are read and then dropped, primitive array contents
// are only hashed as they stream by, so memory grows with the object count,
// not the file size.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace fathom::hprof {

struct FieldDef {
  uint64_t name_id;
  uint8_t type;
};

struct ClassDef {
  std::string name;     // normalized ("java.lang.String[]")
  uint32_t order = 0;   // first LOAD_CLASS position: the class row order
  bool dumped = false;  // a CLASS_DUMP was read
  uint64_t super_id = 0;
  uint32_t instance_size = 0;
  uint32_t static_bytes = 0;     // sum of static value sizes (the Class object's size)
  std::vector<FieldDef> fields;  // instance fields, as written (this class only)
  // Non-null static object fields: (field name, target object id).
  std::vector<std::pair<std::string, uint64_t>> static_refs;
};

enum class ObjectKind : uint8_t { kInstance, kClass, kObjectArray, kPrimitiveArray };

// A reference's label: an index into Dump::labels, or an array element index
// when kArrayIndexBit is set.
inline constexpr uint32_t kArrayIndexBit = 0x80000000u;

struct Ref {
  uint64_t target;
  uint32_t label;
};

struct ObjectRec {
  uint64_t id;
  uint64_t class_id;   // for a primitive array: 0 (its class is found by element type)
  uint64_t size;       // instance data bytes, or element count for arrays
  uint64_t first_ref;  // into Dump::refs
  uint32_t ref_count;
  uint16_t heap;  // into Dump::heaps
  ObjectKind kind;
  uint8_t elem_type;  // primitive arrays
};

struct Dump {
  uint32_t id_size = 0;
  int64_t timestamp_ms = 0;
  std::unordered_map<uint64_t, std::string> strings;
  std::unordered_map<uint64_t, ClassDef> classes;
  std::vector<ObjectRec> objects;
  std::vector<Ref> refs;
  std::vector<std::string> labels;              // qualified field names ("java.lang.String.value")
  std::vector<std::string> heaps{""};           // heap names; 0 = none given (HotSpot)
  std::unordered_map<uint64_t, uint8_t> roots;  // object id -> root tag
  // For the heap explorer's contents pass (hprof_contents.h), in read order:
  // each primitive array's object index, content hash and the file offset of
  // its data (so a string's text or a bitmap's pixels can be read back later
  // without keeping them); Activities whose mDestroyed or mFinished is true;
  // Strings whose `coder` says UTF-16 (HotSpot's compact strings); and
  // android.graphics.Bitmap instances with their primitive fields.
  struct ContentRec {
    uint64_t index, hash, offset;
  };
  struct BitmapRec {
    uint64_t index;
    int32_t width, height;
    int64_t native_ptr;  // 0 when the class has no mNativePtr
  };
  std::vector<ContentRec> content_hashes;
  std::vector<uint64_t> finished_activities;
  std::vector<uint64_t> utf16_strings;
  std::vector<BitmapRec> bitmaps;
  // Instances read before their class layout was known: object index -> bytes.
  std::unordered_map<uint64_t, std::vector<uint8_t>> pending_data;

  // Counters reported as upstream's hprof_* stats.
  int64_t string_count = 0, class_count = 0, heap_dump_count = 0, instance_count = 0,
          object_array_count = 0, primitive_array_count = 0, root_count = 0, segment_overshoots = 0,
          class_errors = 0;
};

}  // namespace fathom::hprof
