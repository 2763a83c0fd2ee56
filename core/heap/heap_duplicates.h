// Duplicates and leaks in one analysed dump (heap_analysis.h).
//
// Duplicates: equal strings, equal primitive arrays and equal bitmaps by
// content, from the hash of each primitive array's bytes (heap_contents.h):
// strings compare their `value` array, bitmaps their `mBuffer`. Without
// contents there are no duplicates to show.
//
// Leaks, as Android Studio's filter: Activities whose mDestroyed or mFinished
// is true (needs contents), and Fragments with no FragmentManager (a null
// mFragmentManager reference: from the tables alone), still reachable from a
// GC root.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/string_pool.h"
#include "core/heap/heap_analysis.h"
#include "core/heap/heap_contents.h"

namespace fathom {
class TraceStorage;
namespace heap {

enum class DuplicateKind { kString, kPrimitiveArray, kBitmap };

struct DuplicateGroup {
  DuplicateKind kind;
  uint32_t cls = 0;               // heap_graph_class row of the copies
  int64_t bytes_each = 0;         // one copy (a string or bitmap with its array)
  int64_t wasted = 0;             // all copies but one
  std::vector<uint32_t> objects;  // the copies (local indices)
  // A string's text (up to 200 characters), a bitmap's "W x H px"; empty
  // for other arrays.
  std::string text;
};

// The local index `field` (a qualified field name's string id) of object v
// refers to, or kNoObject.
uint32_t FieldTarget(const TraceStorage& s, const HeapAnalysis& a, uint32_t v, StringId field);
// Per heap_graph_class row: 1 when the class is one of `names` or derives
// from one.
std::vector<uint8_t> DerivesFrom(const TraceStorage& s,
                                 std::initializer_list<std::string_view> names);

// Reachable copies only, most wasted bytes first. An array that is a
// string's or bitmap's contents counts with its owner, not on its own.
std::vector<DuplicateGroup> FindDuplicates(const TraceStorage& s, const HeapAnalysis& a,
                                           const HeapContents* contents);

struct LeakRow {
  uint32_t object;
  std::string reason;  // "Activity destroyed or finished", "Fragment without FragmentManager"
};

// Largest retained size first.
std::vector<LeakRow> FindLeaks(const TraceStorage& s, const HeapAnalysis& a,
                               const HeapContents* contents);

}  // namespace heap
}  // namespace fathom
