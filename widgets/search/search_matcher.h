// The omnibox's text test, applied to interned strings: a case-insensitive
// substring or a case-insensitive regex. Each distinct string of the pool is
// tested once (its answer is cached by StringId), so scanning a column of
// millions of rows costs one byte lookup a row, not a string compare.
#pragma once

#include <QRegularExpression>
#include <QString>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/string_pool.h"

namespace fathom::gui {

class SearchMatcher {
 public:
  SearchMatcher(const QString& text, bool regex, const StringPool& pool);

  bool valid() const { return !regex_ || re_.isValid(); }
  // NULL never matches (as SQL's instr / regexp on NULL).
  bool matchesId(StringId id) {
    if (id == kNullStringId || id >= cache_.size()) return false;
    int8_t& c = cache_[id];
    if (c < 0) c = matches(pool_.Get(id)) ? 1 : 0;
    return c == 1;
  }
  bool matches(std::string_view s) const;

 private:
  bool regex_;
  QRegularExpression re_;
  std::string needle_;  // lower-case UTF-8 (substring mode)
  bool ascii_needle_ = true;
  QString needle_q_;
  const StringPool& pool_;
  std::vector<int8_t> cache_;  // by StringId: -1 not tested yet, 0 / 1
};

}  // namespace fathom::gui
