// The heap explorer's questions over one analysed dump (heap_analysis.h):
// the class histogram, a class's instances, and one object's fields,
// referrers and path from a GC root. All O(V + E) or better; run them on a
// worker for large dumps.
#pragma once

#include <string>
#include <vector>

#include "core/heap/heap_analysis.h"

namespace fathom {
class TraceStorage;
namespace heap {

enum class Grouping { kClass, kPackage };

struct HistogramRow {
  std::string name;               // class name (deobfuscated when known) or package
  std::vector<uint32_t> classes;  // heap_graph_class rows in the group
  int64_t count = 0;              // reachable instances
  int64_t shallow_size = 0;       // their self sizes
  // Bytes freed if every instance in the group went away: the retained
  // sizes of the instances that no other instance of the group dominates.
  int64_t retained_size = 0;
  int64_t unreachable_count = 0;
};

// Reachable objects only (plus each group's unreachable count), largest
// retained size first. A package is the class name up to its last '.'
// (array brackets and java.lang.Class<...> wrappers removed first).
std::vector<HistogramRow> ClassHistogram(const TraceStorage& s, const HeapAnalysis& a,
                                         Grouping grouping);

// The reachable instances of the given classes, largest retained size first.
std::vector<uint32_t> Instances(const HeapAnalysis& a, const std::vector<uint32_t>& classes);

std::string ClassName(const TraceStorage& s, uint32_t class_row);
std::string PackageOf(std::string_view class_name);
// "com.example.Foo @123" (123: the heap_graph_object id).
std::string ObjectLabel(const TraceStorage& s, const HeapAnalysis& a, uint32_t v);

// One reference in the object inspector: `other` is the referenced object
// for a field, the referring object for a referrer (local index, or
// kNoObject when it lies outside the dump).
struct RefRow {
  std::string field;
  uint32_t other = kNoObject;
};

struct ObjectDetails {
  uint32_t object = kNoObject;
  std::string root_type;  // empty unless a GC root
  std::string heap;
  std::vector<RefRow> fields;     // outgoing references, in field order
  std::vector<RefRow> referrers;  // incoming references
  // From a GC root to the object: each step's object and the field it was
  // reached through ("" for the root). Empty when unreachable.
  std::vector<RefRow> path;
};

ObjectDetails DescribeObject(const TraceStorage& s, const HeapAnalysis& a, uint32_t v);

}  // namespace heap
}  // namespace fathom
