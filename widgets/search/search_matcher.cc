#include "widgets/search/search_matcher.h"

#include <algorithm>

namespace fathom::gui {
namespace {

char asciiLower(char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; }

}  // namespace

SearchMatcher::SearchMatcher(const QString& text, bool regex, const StringPool& pool)
    : regex_(regex), pool_(pool), cache_(pool.size(), -1) {
  if (regex_) {
    re_ = QRegularExpression(text, QRegularExpression::CaseInsensitiveOption);
    re_.optimize();
    return;
  }
  needle_q_ = text.toLower();
  needle_ = needle_q_.toStdString();
  ascii_needle_ = std::all_of(needle_.begin(), needle_.end(),
                              [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

bool SearchMatcher::matches(std::string_view s) const {
  if (regex_) return re_.match(QString::fromUtf8(s.data(), qsizetype(s.size()))).hasMatch();
  if (!ascii_needle_)  // Unicode case folding needs QString
    return QString::fromUtf8(s.data(), qsizetype(s.size())).toLower().contains(needle_q_);
  // An ASCII needle: lower-case bytes on the fly (non-ASCII bytes compare as they are,
  // as SQLite's lower() leaves them).
  auto it = std::search(s.begin(), s.end(), needle_.begin(), needle_.end(),
                        [](char a, char b) { return asciiLower(a) == b; });
  return it != s.end() || needle_.empty();
}

}  // namespace fathom::gui
