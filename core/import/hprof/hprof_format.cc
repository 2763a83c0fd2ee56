#include "core/import/hprof/hprof_format.h"

#include <algorithm>
#include <cstring>

#include "core/base/jvm_types.h"

namespace fathom::hprof {

size_t TypeSize(uint8_t type, uint32_t id_size) {
  switch (type) {
    case kObject:
      return id_size;
    case kBoolean:
    case kByte:
      return 1;
    case kChar:
    case kShort:
      return 2;
    case kFloat:
    case kInt:
      return 4;
    case kDouble:
    case kLong:
      return 8;
    default:
      return 0;
  }
}

int RootExtraBytes(uint8_t tag, uint32_t id_size) {
  switch (tag) {
    case 0xFF:  // unknown
    case 0x05:  // sticky class
    case 0x07:  // monitor used
    case 0x89:  // ART: interned string
    case 0x8A:  // ART: finalizing
    case 0x8B:  // ART: debugger
    case 0x8C:  // ART: reference cleanup
    case 0x8D:  // ART: VM internal
    case 0x90:  // ART: unreachable
      return 0;
    case 0x01:  // JNI global: + JNI global ref id
      return static_cast<int>(id_size);
    case 0x02:  // JNI local: thread serial, frame number
    case 0x03:  // Java frame: thread serial, frame number
    case 0x08:  // thread object: thread serial, stack trace serial
    case 0x8E:  // ART: JNI monitor: thread serial, stack depth
      return 8;
    case 0x04:  // native stack: thread serial
    case 0x06:  // thread block: thread serial
      return 4;
    default:
      return -1;
  }
}

const char* RootTypeName(uint8_t tag) {
  switch (tag) {
    case 0x01:
      return "JNI_GLOBAL";
    case 0x02:
      return "JNI_LOCAL";
    case 0x03:
      return "JAVA_FRAME";
    case 0x04:
      return "NATIVE_STACK";
    case 0x05:
      return "STICKY_CLASS";
    case 0x06:
      return "THREAD_BLOCK";
    case 0x07:
      return "MONITOR_USED";
    case 0x08:
      return "THREAD_OBJECT";
    case 0x89:
      return "INTERNED_STRING";
    case 0x8A:
      return "FINALIZING";
    case 0x8B:
      return "DEBUGGER";
    case 0x8D:
      return "VM_INTERNAL";
    case 0x8E:
      return "JNI_MONITOR";
    default:
      return "UNKNOWN";
  }
}

bool NormalizeClassName(std::string_view in, std::string* out) {
  size_t dims = 0;
  while (dims < in.size() && in[dims] == '[') ++dims;
  std::string_view base = in.substr(dims);
  std::string name;
  if (dims > 0) {
    if (base.empty()) {
      *out = std::string(in);
      return false;
    }
    if (auto primitive = JvmPrimitiveTypeName(base[0])) {
      name = std::string(*primitive);
    } else if (base[0] == 'L' && base.back() == ';') {
      name = std::string(base.substr(1, base.size() - 2));
    } else {
      *out = std::string(in);
      return false;
    }
  } else {
    name = std::string(base);
  }
  std::replace(name.begin(), name.end(), '/', '.');
  for (size_t i = 0; i < dims; ++i) name += "[]";
  *out = std::move(name);
  return true;
}

const char* PrimitiveArrayName(uint8_t type) {
  switch (type) {
    case kBoolean:
      return "boolean[]";
    case kChar:
      return "char[]";
    case kFloat:
      return "float[]";
    case kDouble:
      return "double[]";
    case kByte:
      return "byte[]";
    case kShort:
      return "short[]";
    case kInt:
      return "int[]";
    case kLong:
      return "long[]";
    default:
      return nullptr;
  }
}

bool LooksLikeHprof(const uint8_t* data, size_t size) {
  static constexpr char kMagic[] = "JAVA PROFILE 1.0.";
  constexpr size_t n = sizeof(kMagic) - 1;
  if (size < n + 2 || memcmp(data, kMagic, n) != 0) return false;
  // The version digit, then the NUL that ends the format string.
  return data[n] >= '0' && data[n] <= '9' && memchr(data + n, 0, std::min<size_t>(size - n, 8));
}

}  // namespace fathom::hprof
