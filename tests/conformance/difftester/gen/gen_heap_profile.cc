// heapprofd ProfilePackets: interned strings, mappings, frames and callstacks,
// then per-process dumps of one or more heaps, repeated over time with
// cumulative counters (continuous dumps). Every packet carries the interning
// it uses, so each is valid on its own.
#include <algorithm>
#include <string>

#include "tests/conformance/difftester/gen/generators.h"

namespace fathom::difftester {
namespace {

using perfetto::protos::ProfilePacket;

const char* const kFunctions[] = {"malloc",           "operator new",      "main",
                                  "art::Heap::Alloc", "__libc_start_main", "Foo::Bar(int)"};
const char* const kHeaps[] = {"libc.malloc", "com.android.art", "custom_heap"};
constexpr int kCallstacks = 5;

void AddInterning(ProfilePacket* pp) {
  // string ids: 1..6 functions, 10 build id, 11/12 mapping path components.
  for (size_t i = 0; i < std::size(kFunctions); ++i) {
    auto* s = pp->add_strings();
    s->set_iid(1 + i);
    s->set_str(kFunctions[i]);
  }
  const std::pair<uint64_t, const char*> more[] = {
      {10, "\x01\x02\xab\xcd"}, {11, "system"}, {12, "libc.so"}};
  for (auto [iid, str] : more) {
    auto* s = pp->add_strings();
    s->set_iid(iid);
    s->set_str(str);
  }
  auto* m = pp->add_mappings();
  m->set_iid(1);
  m->set_build_id(10);
  m->set_start(0x7000000000);
  m->set_end(0x7000100000);
  m->add_path_string_ids(11);
  m->add_path_string_ids(12);
  for (size_t i = 0; i < std::size(kFunctions); ++i) {
    auto* f = pp->add_frames();
    f->set_iid(1 + i);
    f->set_function_name_id(1 + i);
    f->set_mapping_id(1);
    f->set_rel_pc(0x1000 + 0x10 * i);
  }
  // Callstack k: __libc_start_main -> main -> (k-dependent) -> malloc.
  for (int k = 0; k < kCallstacks; ++k) {
    auto* c = pp->add_callstacks();
    c->set_iid(1 + static_cast<uint64_t>(k));
    c->add_frame_ids(5);
    c->add_frame_ids(3);
    if (k % 2) c->add_frame_ids(6);
    if (k >= 2) c->add_frame_ids(k == 4 ? 4 : 2);
    c->add_frame_ids(1);
  }
}

}  // namespace

void EmitHeapProfiles(GenContext* ctx) {
  const SimThread* target = ctx->RandomUserThread();
  if (!target) return;
  const int32_t pid = target->tgid;
  const int dumps = 1 + static_cast<int>(ctx->Rand(3));
  const int heaps = 1 + static_cast<int>(ctx->Rand(std::size(kHeaps)));
  const uint32_t seq = GenContext::kSeqHeapProfileBase;
  uint64_t allocated[kCallstacks] = {}, freed[kCallstacks] = {};
  const int64_t span = ctx->end_ts - ctx->start_ts;
  for (int d = 0; d < dumps; ++d) {
    const int64_t ts = ctx->start_ts + span * (d + 1) / (dumps + 1);
    TracePacket* p = ctx->Emit(ts, seq);
    ProfilePacket* pp = p->mutable_profile_packet();
    AddInterning(pp);
    pp->set_index(static_cast<uint64_t>(d));
    for (int h = 0; h < heaps; ++h) {
      auto* dump = pp->add_process_dumps();
      dump->set_pid(static_cast<uint64_t>(pid));
      // Dump times are CLOCK_MONOTONIC_COARSE (per the spec), unlike the packet's.
      dump->set_timestamp(static_cast<uint64_t>(ts - ctx->monotonic_offset));
      if (h > 0 || ctx->Chance(50)) dump->set_heap_name(kHeaps[h]);
      if (ctx->Chance(50)) dump->set_sampling_interval_bytes(4096);
      if (ctx->Chance(15)) dump->set_from_startup(true);
      if (ctx->Chance(10)) dump->set_buffer_overran(true);
      for (int k = 0; k < kCallstacks; ++k) {
        if (ctx->Chance(30)) continue;
        // Counters are cumulative since the profile started.
        allocated[k] += 4096 * (1 + ctx->Rand(20));
        freed[k] = std::min(allocated[k], freed[k] + 4096 * ctx->Rand(10));
        auto* s = dump->add_samples();
        s->set_callstack_id(1 + static_cast<uint64_t>(k));
        s->set_self_allocated(allocated[k]);
        s->set_self_freed(freed[k]);
        s->set_alloc_count(allocated[k] / 4096);
        s->set_free_count(freed[k] / 4096);
      }
    }
  }
}

}  // namespace fathom::difftester
