// A synthetic Java heap graph generated straight into TraceStorage, shared
// by the flamegraph and heap explorer benchmarks.
#pragma once

#include <random>
#include <string>

#include "core/storage/trace_storage.h"

namespace fathom::bench {

// Default shape: like a real heap dump, ids follow allocation order and most
// references point to objects allocated nearby (a fifth go anywhere); the
// class of an object depends on its neighbourhood, so class paths repeat.
// `uniform`: every reference and class uniformly random (the worst case for
// caches and for merging by class path).
inline void GenerateHeapGraph(fathom::TraceStorage* s, uint32_t objects, uint32_t refs_per_object,
                              bool uniform) {
  using namespace fathom;
  std::mt19937_64 rng(7);
  auto& classes = s->profile.heap_graph_class;
  auto& obj = s->profile.heap_graph_object;
  auto& refs = s->profile.heap_graph_reference;
  const uint32_t kClasses = 5000;
  StringId kind = s->Intern("KIND_NORMAL");
  for (uint32_t c = 0; c < kClasses; ++c)
    classes.Insert(s->Intern("com.example.Class" + std::to_string(c)), kNullStringId, kind);
  StringId root = s->Intern("ROOT_JNI_GLOBAL");
  StringId field = s->Intern("field");
  for (uint32_t o = 0; o < objects; ++o) {
    obj.Insert(1, 2000);
    uint32_t type = uniform ? static_cast<uint32_t>(rng() % kClasses)
                            : static_cast<uint32_t>((o % 61) * 37 + (o / 4096) % 13) % kClasses;
    obj.type_id.Set(o, type);
    obj.self_size.Set(o, 16 + static_cast<int64_t>(rng() % 256));
    if (o % 5000 == 0) obj.root_type.Set(o, root);
  }
  for (uint32_t o = 0; o < objects; ++o) {
    uint32_t set = refs.row_count();
    for (uint32_t k = 0; k < refs_per_object; ++k) {
      // Mostly local structure (nearby ids) plus long-range links.
      uint32_t target;
      if (k == 0)
        target = o + 1 + static_cast<uint32_t>(rng() % 8);
      else if (uniform || rng() % 5 == 0)
        target = static_cast<uint32_t>(rng() % objects);
      else
        target = o + 1 + static_cast<uint32_t>(rng() % 1024);
      if (target >= objects) target = objects - 1;
      refs.Insert(set, o, target, field, kNullStringId);
    }
    obj.reference_set_id.Set(o, set);
  }
  s->process.Insert(1);
  s->process.Insert(4321);
}

}  // namespace fathom::bench
