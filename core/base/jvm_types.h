// The JVM's one-letter codes for primitive types, as type descriptors and
// array signatures write them ("[I" is an int array). Shared by the readers
// of heap dumps and of ART allocation logs.
#pragma once

#include <optional>
#include <string_view>

namespace fathom {

// "int" for 'I', ..., nullopt for a code that is not a primitive ('L', '[').
inline std::optional<std::string_view> JvmPrimitiveTypeName(char code) {
  switch (code) {
    case 'Z':
      return "boolean";
    case 'B':
      return "byte";
    case 'C':
      return "char";
    case 'S':
      return "short";
    case 'I':
      return "int";
    case 'J':
      return "long";
    case 'F':
      return "float";
    case 'D':
      return "double";
    default:
      return std::nullopt;
  }
}

}  // namespace fathom
