#include "core/sql/functions/regex_functions.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <unordered_map>

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

// Texts longer than this (in code points) are matched by libstdc++'s
// breadth-first matcher: the default one recurses once per repeated
// character and overflows the stack around 100k characters. The
// breadth-first one runs in bounded stack but prefers the longest
// alternative (POSIX) where RE2, upstream's engine, takes the first, so
// shorter texts keep the default.
constexpr size_t kLongText = 20000;

// A pattern compiled for one case mode.
struct CompiledPattern {
  std::wstring source;
  std::regex::flag_type syntax;
  std::wregex first_match;
  std::optional<std::wregex> bounded_stack;  // compiled on the first long text
};

// Compiled patterns by flag + pattern text. SQLite's per-statement auxdata
// would not do: it may drop a value at once, and varying patterns (a column)
// would recompile per row.
struct PatternCache {
  static constexpr size_t kMaxEntries = 256;
  std::unordered_map<std::string, std::unique_ptr<CompiledPattern>> by_key;
};

void DeletePatternCache(void* p) { delete static_cast<PatternCache*>(p); }

std::regex::flag_type SyntaxFor(bool case_insensitive) {
  auto syntax = std::regex::ECMAScript;
  if (case_insensitive) syntax |= std::regex::icase;
  return syntax;
}

// The pattern in argv[arg] (nullptr after reporting a compile error). RE2's
// leading "(?i)" turns case-insensitivity on (ECMAScript has no inline flags).
CompiledPattern* PatternArg(sqlite3_context* ctx, sqlite3_value** argv, int arg,
                            bool case_insensitive) {
  std::string_view text = TextOf(argv[arg]);
  if (text.substr(0, 4) == "(?i)") {
    text.remove_prefix(4);
    case_insensitive = true;
  }
  auto* cache = static_cast<PatternCache*>(sqlite3_user_data(ctx));
  std::string key(1, case_insensitive ? 'i' : 'c');
  key.append(text);
  auto it = cache->by_key.find(key);
  if (it != cache->by_key.end()) return it->second.get();
  auto compiled = std::make_unique<CompiledPattern>();
  compiled->source = Utf8ToWide(text);
  compiled->syntax = SyntaxFor(case_insensitive);
  try {
    compiled->first_match.assign(compiled->source, compiled->syntax);
  } catch (const std::regex_error& e) {
    std::string msg = std::string("regex compile error: ") + e.what() + ": ";
    msg.append(TextOf(argv[arg]));
    sqlite3_result_error(ctx, msg.c_str(), -1);
    return nullptr;
  }
  if (cache->by_key.size() >= PatternCache::kMaxEntries) cache->by_key.clear();
  return cache->by_key.emplace(std::move(key), std::move(compiled)).first->second.get();
}

// The matcher for a text of `length` code points.
const std::wregex& MatcherFor(CompiledPattern* pattern, size_t length) {
#ifdef __GLIBCXX__
  if (length > kLongText) {
    if (!pattern->bounded_stack) {
      try {
        pattern->bounded_stack.emplace(pattern->source,
                                       pattern->syntax | std::regex_constants::__polynomial);
      } catch (const std::regex_error&) {
        pattern->bounded_stack.reset();
      }
    }
    if (pattern->bounded_stack) return *pattern->bounded_stack;
  }
#endif
  (void)length;
  return pattern->first_match;
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
  CompiledPattern* pattern = PatternArg(ctx, argv, 0, insensitive);
  if (!pattern) return;
  const std::wstring text = Utf8ToWide(TextOf(argv[1]));
  sqlite3_result_int(ctx, std::regex_search(text, MatcherFor(pattern, text.size())) ? 1 : 0);
}

void RegexpExtract(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (AnyNull(argc, argv)) return sqlite3_result_null(ctx);
  CompiledPattern* pattern = PatternArg(ctx, argv, 1, false);
  if (!pattern) return;
  if (pattern->first_match.mark_count() > 1)
    return sqlite3_result_error(ctx, "REGEXP_EXTRACT: pattern has more than one group.", -1);
  const std::wstring text = Utf8ToWide(TextOf(argv[0]));
  std::wsmatch m;
  if (!std::regex_search(text, m, MatcherFor(pattern, text.size())))
    return sqlite3_result_null(ctx);
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
  CompiledPattern* pattern = PatternArg(ctx, argv, 1, false);
  if (!pattern) return;
  const std::wstring text = Utf8ToWide(TextOf(argv[0]));
  const std::wstring rewrite = Utf8ToWide(TextOf(argv[2]));
  // A rewrite naming a group the pattern lacks replaces nothing.
  if (MaxRewriteGroup(rewrite) > static_cast<int>(pattern->first_match.mark_count()))
    return sqlite3_result_value(ctx, argv[0]);
  const std::wregex& matcher = MatcherFor(pattern, text.size());
  std::wstring out;
  auto pos = text.cbegin();
  std::optional<std::wstring::const_iterator> last_match_end;
  std::wsmatch m;
  while (pos <= text.cend()) {
    const auto flags = pos == text.cbegin() ? std::regex_constants::match_default
                                            : std::regex_constants::match_prev_avail;
    if (!std::regex_search(pos, text.cend(), m, matcher, flags)) break;
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
    int rc =
        sqlite3_create_function_v2(db, f.name, f.argc, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                                   new PatternCache(), f.fn, nullptr, nullptr, DeletePatternCache);
    if (rc != SQLITE_OK) return ErrorStatus(std::string("cannot register ") + f.name);
  }
  return Status::Ok();
}

}  // namespace fathom
