// HPROF 1.0.2/1.0.3 facts shared by the reader and the table writer: record
// and sub-record tags (HotSpot's and ART's), value sizes, root names, and the
// class-name spelling upstream reports ("java.lang.String[]", not "[Ljava/lang/String;").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace fathom::hprof {

// Top-level records: u1 tag, u4 time delta, u4 body length.
enum RecordTag : uint8_t {
  kUtf8 = 0x01,
  kLoadClass = 0x02,
  kHeapDump = 0x0C,
  kHeapDumpSegment = 0x1C,
  kHeapDumpEnd = 0x2C,
};

// Sub-records of HEAP_DUMP / HEAP_DUMP_SEGMENT (GC roots are the others).
enum SubTag : uint8_t {
  kClassDump = 0x20,
  kInstanceDump = 0x21,
  kObjectArrayDump = 0x22,
  kPrimitiveArrayDump = 0x23,
  kPrimitiveArrayNoData = 0xC3,  // ART: header only
  kHeapDumpInfo = 0xFE,          // ART: the heap ("app", "zygote", "image") of what follows
};

// Basic types of fields and array elements.
enum BasicType : uint8_t {
  kObject = 2,
  kBoolean = 4,
  kChar = 5,
  kFloat = 6,
  kDouble = 7,
  kByte = 8,
  kShort = 9,
  kInt = 10,
  kLong = 11,
};

// Bytes of one value of `type` (0 when the type is not one).
size_t TypeSize(uint8_t type, uint32_t id_size);

// Bytes after the object id of a GC root sub-record; -1 for a tag that is no root.
int RootExtraBytes(uint8_t tag, uint32_t id_size);

// The heap_graph_object.root_type spelling of a root tag (upstream names
// ART's reference-cleanup roots, 0x8C, "UNKNOWN" too).
const char* RootTypeName(uint8_t tag);

// "[Ljava/lang/String;" -> "java.lang.String[]", "[B" -> "byte[]",
// "java/lang/Object" -> "java.lang.Object". ART already writes the dotted form.
// Returns false (and the name unchanged) for a malformed signature.
bool NormalizeClassName(std::string_view in, std::string* out);

// "byte[]" etc. for a primitive element type; nullptr otherwise.
const char* PrimitiveArrayName(uint8_t type);

// Whether `data` starts like an HPROF file ("JAVA PROFILE 1.0.x\0").
bool LooksLikeHprof(const uint8_t* data, size_t size);

}  // namespace fathom::hprof
