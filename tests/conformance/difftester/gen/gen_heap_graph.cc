// ART heap graphs: types (with superclasses and class kinds), objects with
// references, roots, interned field and location names; sometimes split
// over continued packets.
#include <string>

#include "tests/conformance/difftester/gen/generators.h"

namespace fathom::difftester {
namespace {

using perfetto::protos::HeapGraph;
using perfetto::protos::HeapGraphRoot;
using perfetto::protos::HeapGraphType;

const char* const kClasses[] = {"java.lang.Object", "java.lang.String", "com.example.Foo", "byte[]",
                                "java.lang.Class<com.example.Foo>"};

void AddTypes(GenContext* ctx, HeapGraph* g) {
  auto* loc = g->add_location_names();
  loc->set_iid(1);
  loc->set_str("base.apk");
  for (size_t i = 0; i < std::size(kClasses); ++i) {
    HeapGraphType* t = g->add_types();
    t->set_id(1 + i);
    t->set_class_name(kClasses[i]);
    if (ctx->Chance(70)) t->set_location_id(1);
    if (i > 0 && i != 3) t->set_superclass_id(1);
    t->set_object_size(i == 3 ? 0 : 16 + 8 * i);
    if (i == 2) t->add_reference_field_id(1), t->add_reference_field_id(2);
    if (ctx->Chance(50))
      t->set_kind(i == 1   ? HeapGraphType::KIND_STRING
                  : i == 3 ? HeapGraphType::KIND_ARRAY
                  : i == 4 ? HeapGraphType::KIND_CLASS
                           : HeapGraphType::KIND_NORMAL);
  }
  const char* const fields[] = {"com.example.Foo.next", "com.example.Foo.name"};
  for (size_t i = 0; i < std::size(fields); ++i) {
    auto* f = g->add_field_names();
    f->set_iid(1 + i);
    f->set_str(fields[i]);
  }
}

void AddObjects(GenContext* ctx, HeapGraph* g, int first, int objects) {
  for (int i = first; i < objects; ++i) {
    auto* o = g->add_objects();
    o->set_id(0x1000 + 0x10 * static_cast<uint64_t>(i));
    const uint64_t type = 1 + ctx->Rand(std::size(kClasses));
    o->set_type_id(type);
    if (type == 4) o->set_self_size(16 + ctx->Rand(4096));
    if (type == 3 && i + 1 < objects) {
      o->add_reference_field_id(1);
      o->add_reference_object_id(0x1000 + 0x10 * static_cast<uint64_t>(i + 1));
      o->add_reference_field_id(2);
      o->add_reference_object_id(ctx->Chance(50) ? 0 : 0x1000);  // 0 = null reference
    }
  }
}

}  // namespace

void EmitHeapGraphs(GenContext* ctx) {
  const SimThread* target = ctx->RandomUserThread();
  if (!target) return;
  const int64_t ts = ctx->start_ts + (ctx->end_ts - ctx->start_ts) / 2;
  const uint32_t seq = GenContext::kSeqHeapGraphBase;
  const int objects = 3 + static_cast<int>(ctx->Rand(12));
  const bool split = ctx->Chance(40);
  HeapGraph* g = ctx->Emit(ts, seq)->mutable_heap_graph();
  g->set_pid(target->tgid);
  g->set_index(0);
  AddTypes(ctx, g);
  AddObjects(ctx, g, 0, split ? objects / 2 : objects);
  auto* root = g->add_roots();
  root->set_root_type(ctx->Chance(50) ? HeapGraphRoot::ROOT_JAVA_FRAME
                                      : HeapGraphRoot::ROOT_JNI_GLOBAL);
  root->add_object_ids(0x1000);
  if (split) {
    g->set_continued(true);
    HeapGraph* g2 = ctx->Emit(ts, seq)->mutable_heap_graph();
    g2->set_pid(target->tgid);
    g2->set_index(1);
    AddObjects(ctx, g2, objects / 2, objects);
  }
}

}  // namespace fathom::difftester
