#include "core/sql/functions/regex_functions.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <string_view>

#include "core/sql/functions/utf32_text.h"

namespace fathom {
namespace {

std::string_view TextOf(sqlite3_value* v) {
  const auto* p = reinterpret_cast<const char*>(sqlite3_value_text(v));
  return p ? std::string_view(p, static_cast<size_t>(sqlite3_value_bytes(v))) : std::string_view();
}

bool AnyNull(int argc, sqlite3_value** argv) {
  for (int i = 0; i < argc; ++i)
    if (sqlite3_value_type(argv[i]) == SQLITE_NULL) return true;
  return false;
}

// A compiled pattern, cached by SQLite on the pattern argument while that
// argument stays the same (a constant pattern compiles once per statement).
struct CompiledPattern {
  bool case_insensitive = false;
  std::wregex re;
};

void DeleteCompiledPattern(void* p) { delete static_cast<CompiledPattern*>(p); }

// The compiled form of argv[arg] (nullptr after reporting a compile error).
const CompiledPattern* PatternArg(sqlite3_context* ctx, sqlite3_value** argv, int arg,
                                  bool case_insensitive) {
  auto* cached = static_cast<CompiledPattern*>(sqlite3_get_auxdata(ctx, arg));
  if (cached && cached->case_insensitive == case_insensitive) return cached;
  auto compiled = std::make_unique<CompiledPattern>();
  compiled->case_insensitive = case_insensitive;
  auto syntax = std::regex::ECMAScript;
  if (case_insensitive) syntax |= std::regex::icase;
  try {
    compiled->re.assign(Utf8ToWide(TextOf(argv[arg])), syntax);
  } catch (const std::regex_error& e) {
    std::string msg = std::string("regex compile error: ") + e.what() + ": ";
    msg.append(TextOf(argv[arg]));
    sqlite3_result_error(ctx, msg.c_str(), -1);
    return nullptr;
  }
  // SQLite owns the object from here, and may drop it at once: read it back.
  sqlite3_set_auxdata(ctx, arg, compiled.release(), DeleteCompiledPattern);
  return static_cast<CompiledPattern*>(sqlite3_get_auxdata(ctx, arg));
}

// Flags of regexp(): 'i' insensitive, 'c' sensitive; the last one wins.
std::optional<bool> ParseCaseFlags(sqlite3_context* ctx, std::string_view flags) {
  bool insensitive = false;
  for (char f : flags) {
    if (f == 'i') {
      insensitive = true;
    } else if (f == 'c') {
      insensitive = false;
    } else {
      std::string msg = std::string("regexp: unknown flag '") + f + "'";
      sqlite3_result_error(ctx, msg.c_str(), -1);
      return std::nullopt;
    }
  }
  return insensitive;
}

void ResultWide(sqlite3_context* ctx, std::wstring_view wide) {
  std::string out;
  AppendWideAsUtf8(wide, &out);
  sqlite3_result_text(ctx, out.data(), static_cast<int>(out.size()), SQLITE_TRANSIENT);
}

// regexp(pattern, text[, flags]); SQLite maps `text REGEXP pattern` to the
// two-argument form.
void Regexp(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  bool insensitive = false;
  if (argc == 3) {
    auto flags = ParseCaseFlags(ctx, TextOf(argv[2]));
    if (!flags) return;
    insensitive = *flags;
  }
  const CompiledPattern* pattern = PatternArg(ctx, argv, 0, insensitive);
  if (!pattern) return;
  const std::wstring text = Utf8ToWide(TextOf(argv[1]));
  sqlite3_result_int(ctx, std::regex_search(text, pattern->re) ? 1 : 0);
}

void RegexpExtract(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  const CompiledPattern* pattern = PatternArg(ctx, argv, 1, false);
  if (!pattern) return;
  if (pattern->re.mark_count() > 1)
    return sqlite3_result_error(ctx, "REGEXP_EXTRACT: pattern has more than one group.", -1);
  const std::wstring text = Utf8ToWide(TextOf(argv[0]));
  std::wsmatch m;
  if (!std::regex_search(text, m, pattern->re)) return sqlite3_result_null(ctx);
  // A group that took part with some text is the answer; an optional group
  // that matched nothing falls back to the whole match.
  const bool use_group = m.size() > 1 && m[1].matched && m[1].length() > 0;
  ResultWide(ctx, use_group ? m[1].str() : m[0].str());
}

// Highest \N group the rewrite names (-1 for none).
int MaxRewriteGroup(std::wstring_view rewrite) {
  int max_group = -1;
  for (size_t i = 0; i + 1 < rewrite.size(); ++i) {
    if (rewrite[i] != L'\\') continue;
    wchar_t c = rewrite[++i];
    if (c >= L'0' && c <= L'9') max_group = std::max(max_group, static_cast<int>(c - L'0'));
  }
  return max_group;
}

// Appends `rewrite` for one match. An escape other than \0..\9 or \\ ends
// the rewrite early (what was appended so far stays), as upstream does.
void AppendRewrite(std::wstring_view rewrite, const std::wsmatch& m, std::wstring* out) {
  for (size_t i = 0; i < rewrite.size(); ++i) {
    wchar_t c = rewrite[i];
    if (c != L'\\') {
      out->push_back(c);
      continue;
    }
    if (++i == rewrite.size()) return;
    c = rewrite[i];
    if (c == L'\\') {
      out->push_back(c);
    } else if (c >= L'0' && c <= L'9') {
      const auto group = static_cast<size_t>(c - L'0');
      if (m[group].matched) out->append(m[group].first, m[group].second);
    } else {
      return;
    }
  }
}

void RegexpReplaceSimple(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  const CompiledPattern* pattern = PatternArg(ctx, argv, 1, false);
  if (!pattern) return;
  const std::wstring text = Utf8ToWide(TextOf(argv[0]));
  const std::wstring rewrite = Utf8ToWide(TextOf(argv[2]));
  // A rewrite naming a group the pattern lacks replaces nothing.
  if (MaxRewriteGroup(rewrite) > static_cast<int>(pattern->re.mark_count()))
    return sqlite3_result_value(ctx, argv[0]);
  std::wstring out;
  auto pos = text.cbegin();
  std::optional<std::wstring::const_iterator> last_match_end;
  std::wsmatch m;
  while (pos <= text.cend()) {
    const auto flags = pos == text.cbegin() ? std::regex_constants::match_default
                                            : std::regex_constants::match_prev_avail;
    if (!std::regex_search(pos, text.cend(), m, pattern->re, flags)) break;
    out.append(pos, m[0].first);
    // An empty match right where the previous match ended would repeat it:
    // step over one character instead.
    if (m[0].length() == 0 && last_match_end && m[0].first == *last_match_end) {
      if (pos == text.cend()) break;
      out.push_back(*pos++);
      continue;
    }
    AppendRewrite(rewrite, m, &out);
    pos = m[0].second;
    last_match_end = pos;
  }
  if (pos < text.cend()) out.append(pos, text.cend());
  ResultWide(ctx, out);
}

}  // namespace

Status RegisterRegexFunctions(sqlite3* db) {
  struct Fn {
    const char* name;
    int argc;
    void (*fn)(sqlite3_context*, int, sqlite3_value**);
  };
  for (const Fn& f :
       {Fn{"regexp", 2, Regexp}, Fn{"regexp", 3, Regexp}, Fn{"regexp_extract", 2, RegexpExtract},
        Fn{"regexp_replace_simple", 3, RegexpReplaceSimple}}) {
    int rc = sqlite3_create_function_v2(db, f.name, f.argc, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                                        nullptr, f.fn, nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) return ErrorStatus(std::string("cannot register ") + f.name);
  }
  return Status::Ok();
}

}  // namespace fathom
