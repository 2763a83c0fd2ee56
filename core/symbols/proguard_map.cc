#include "core/symbols/proguard_map.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>

namespace fathom::symbols {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// Drops a leading "12:34:" (R8/ProGuard obfuscated line range).
std::string_view DropLineRange(std::string_view s) {
  for (int part = 0; part < 2; ++part) {
    size_t i = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    if (i == 0 || i >= s.size() || s[i] != ':') return s;
    s.remove_prefix(i + 1);
  }
  return s;
}

}  // namespace

Result<ProguardMapping> ParseProguardMap(std::string_view text, const std::string& file_name) {
  ProguardMapping out;
  ProguardClass* current = nullptr;
  int line_no = 0;
  auto error = [&](const std::string& what) {
    return ErrorStatus(file_name + ":" + std::to_string(line_no) + ": " + what);
  };
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view raw = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    ++line_no;
    std::string_view line = Trim(raw);
    if (line.empty() || line[0] == '#') continue;
    size_t arrow = line.find(" -> ");
    if (arrow == std::string_view::npos)
      return error("expected 'name -> obfuscated' in \"" + std::string(line.substr(0, 120)) + "\"");
    std::string_view left = Trim(line.substr(0, arrow));
    std::string_view right = Trim(line.substr(arrow + 4));
    bool member = raw[0] == ' ' || raw[0] == '\t';
    if (!member) {
      if (right.size() < 2 || right.back() != ':' || left.empty() ||
          left.find(' ') != std::string_view::npos)
        return error("expected a class line 'original.Name -> obfuscated:'");
      right.remove_suffix(1);
      auto [it, added] = out.try_emplace(std::string(right));
      if (!added)
        return error("class " + std::string(right) + " already defined at line " +
                     std::to_string(it->second.line));
      it->second.deobfuscated = std::string(left);
      it->second.line = line_no;
      current = &it->second;
      continue;
    }
    if (!current) return error("member line before any class line");
    if (right.empty() || right.find(' ') != std::string_view::npos)
      return error("expected one obfuscated member name after '->'");
    left = DropLineRange(left);
    size_t space = left.find(' ');
    if (space == std::string_view::npos)
      return error("expected 'type name -> obfuscated' for a member");
    std::string_view name = Trim(left.substr(space + 1));
    size_t paren = name.find('(');
    if (paren == std::string_view::npos) {
      if (name.empty() || name.find(' ') != std::string_view::npos)
        return error("malformed field '" + std::string(name) + "'");
      auto [it, added] = current->fields.emplace(std::string(right), std::string(name));
      if (!added && it->second != name)
        return error("field " + std::string(right) + " mapped twice (" + it->second + ", " +
                     std::string(name) + ")");
      continue;
    }
    if (name.find(')', paren) == std::string_view::npos)
      return error("malformed method '" + std::string(name) + "' (no ')')");
    name = name.substr(0, paren);
    if (name.empty()) return error("method without a name");
    auto& names = current->methods[std::string(right)];
    if (std::find(names.begin(), names.end(), name) == names.end()) names.emplace_back(name);
  }
  return out;
}

Result<ProguardMapping> ReadProguardMap(const std::string& path) {
  FILE* f = fopen(path.c_str(), "rb");
  if (!f) return ErrorStatus(path + ": cannot open ProGuard map: " + strerror(errno));
  std::string text;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  bool failed = ferror(f) != 0;
  fclose(f);
  if (failed) return ErrorStatus(path + ": read error at offset " + std::to_string(text.size()));
  return ParseProguardMap(text, path);
}

std::string MethodDisplayName(const ProguardClass& cls, const std::vector<std::string>& names) {
  // Group by class: unqualified names belong to `cls`, "a.b.C.m" to a.b.C.
  std::map<std::string, std::set<std::string>> by_class;
  for (const std::string& n : names) {
    size_t dot = n.rfind('.');
    if (dot == std::string::npos)
      by_class[cls.deobfuscated].insert(n);
    else
      by_class[n.substr(0, dot)].insert(n.substr(dot + 1));
  }
  std::string out;
  for (const auto& [c, methods] : by_class) {
    if (!out.empty()) out += " | ";
    out += c + "." + (methods.size() == 1 ? *methods.begin() : std::string("[ambiguous]"));
  }
  return out;
}

Result<std::vector<ProguardMapSpec>> ParseProguardMapSpecs(std::string_view spec) {
  std::vector<ProguardMapSpec> out;
  while (!spec.empty()) {
    size_t colon = spec.find(':');
    std::string_view token = spec.substr(0, colon);
    spec.remove_prefix(colon == std::string_view::npos ? spec.size() : colon + 1);
    if (token.empty()) continue;
    size_t eq = token.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == token.size())
      return ErrorStatus("bad ProGuard map spec '" + std::string(token) +
                         "': expected package=file[:package=file...], e.g. "
                         "com.example.app=mapping.txt");
    out.push_back({std::string(token.substr(0, eq)), std::string(token.substr(eq + 1))});
  }
  return out;
}

}  // namespace fathom::symbols
