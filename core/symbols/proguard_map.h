// Reads ProGuard/R8 mapping files (the format `retrace` reads):
//   com.example.Foo -> a.b:                    class
//       int count -> a                         field
//       1:3:void bar(int):10:12 -> b           method, optional line ranges
//       com.example.Other baz() -> c           (R8: a member moved/inlined from another class)
//   # comments (R8 metadata) and blank lines are skipped.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace fathom::symbols {

struct ProguardClass {
  std::string deobfuscated;
  std::map<std::string, std::string> fields;  // obfuscated -> name
  std::map<std::string, std::vector<std::string>>
      methods;   // obfuscated -> names (overloads, inlining)
  int line = 0;  // where the class was defined
};
// Obfuscated class name -> class.
using ProguardMapping = std::map<std::string, ProguardClass>;

// Errors name `file_name` and the 1-based line.
Result<ProguardMapping> ParseProguardMap(std::string_view text, const std::string& file_name);
Result<ProguardMapping> ReadProguardMap(const std::string& path);

// The method name a frame or member shows for an obfuscated method:
// "Class.method", several candidates joined with " | " ("[ambiguous]" when
// one class has several), as upstream prints them.
std::string MethodDisplayName(const ProguardClass& cls, const std::vector<std::string>& names);

// --map / FATHOM_PROGUARD_MAP / PERFETTO_PROGUARD_MAP:
// "com.example.app=mapping.txt[:com.other=other.txt...]".
struct ProguardMapSpec {
  std::string package;
  std::string file;
};
Result<std::vector<ProguardMapSpec>> ParseProguardMapSpecs(std::string_view spec);

}  // namespace fathom::symbols
