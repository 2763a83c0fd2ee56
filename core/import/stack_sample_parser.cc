#include "core/import/stack_sample_parser.h"

#include "core/import/process_tracker.h"
#include "core/import/profile_stack_tracker.h"
#include "core/import/profiler_sample_tracker.h"
#include "core/import/sequence_state.h"
#include "core/import/trace_context.h"
#include "perfetto/trace/interned_data.pb.h"
#include "perfetto/trace/profiling/profile_packet.pb.h"
#include "perfetto/trace/trace.pb.h"

namespace fathom {

using perfetto::protos::InternedData;
using perfetto::protos::StackSample;
using perfetto::protos::StackSampleDefaults;
using perfetto::protos::TracePacketDefaults;

namespace {

const char* UnitName(uint64_t unit) {
  static const char* kNames[] = {nullptr,         "ns",          "cycles",       "instructions",
                                 "bytes",         "page-faults", "cache-misses", "cache-references",
                                 "branch-misses", "count"};
  return unit < std::size(kNames) ? kNames[unit] : nullptr;
}

// NULL for MODE_UNKNOWN: the sampler did not say.
const char* ModeName(uint64_t mode) {
  switch (mode) {
    case StackSample::MODE_USER:
      return "user";
    case StackSample::MODE_KERNEL:
      return "kernel";
    case StackSample::MODE_HYPERVISOR:
      return "hypervisor";
    case StackSample::MODE_GUEST_USER:
      return "guest_user";
    case StackSample::MODE_GUEST_KERNEL:
      return "guest_kernel";
    default:
      return nullptr;
  }
}

// Async contexts can name their parents; a cycle must not recurse forever.
constexpr int kMaxAsyncDepth = 64;

}  // namespace

StackSampleParser::Descriptor StackSampleParser::DecodeDescriptor(proto::Bytes msg) {
  using CD = StackSample::CounterDescriptor;
  TraceStorage* s = ctx_->storage.get();
  Descriptor d;
  proto::Decoder dec(msg);
  for (proto::Field f = dec.Next(); f.valid(); f = dec.Next()) {
    if (f.id == CD::kNameFieldNumber) d.name = s->Intern(f.as_string());
    if (f.id == CD::kUnitFieldNumber) {
      const char* unit = UnitName(f.as_uint64());
      d.unit = unit ? s->Intern(unit) : kNullStringId;
    }
    if (f.id == CD::kUnitStrFieldNumber) d.unit = s->Intern(f.as_string());
    if (f.id == CD::kUnitMultiplierFieldNumber) d.multiplier = f.as_uint64();
    if (f.id == CD::kDescriptionFieldNumber) d.description = s->Intern(f.as_string());
  }
  return d;
}

StackSampleParser::Stream& StackSampleParser::StreamOf(const SequenceGeneration& gen) {
  auto [it, inserted] = streams_.try_emplace(gen.sequence_id);
  Stream& stream = it->second;
  if (!inserted || !gen.trace_packet_defaults) return stream;
  proto::Decoder d(*gen.trace_packet_defaults);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id != TracePacketDefaults::kStackSampleDefaultsFieldNumber) continue;
    proto::Decoder sd(f.bytes);
    for (proto::Field g = sd.Next(); g.valid(); g = sd.Next()) {
      if (g.id == StackSampleDefaults::kSourceFieldNumber)
        stream.source = ctx_->storage->Intern(g.as_string());
      if (g.id == StackSampleDefaults::kPrimaryDescriptorFieldNumber)
        stream.primary = DecodeDescriptor(g.bytes);
      if (g.id == StackSampleDefaults::kFollowerDescriptorsFieldNumber)
        stream.followers.push_back(DecodeDescriptor(g.bytes));
    }
  }
  return stream;
}

uint32_t StackSampleParser::CounterTrack(Stream& stream, const Descriptor& d, bool timebase) {
  auto [it, inserted] = stream.tracks.try_emplace({d.name, timebase}, 0);
  if (!inserted) return it->second;
  auto dims = ctx_->args_tracker->NewSet();
  dims.AddInt("session_id", *stream.session);
  dims.AddString("source", stream.source);
  dims.AddString("counter_name", d.name);
  auto source = ctx_->args_tracker->NewSet();
  source.AddBool("is_timebase", timebase);
  if (d.multiplier) source.AddInt("unit_multiplier", static_cast<int64_t>(*d.multiplier));
  if (d.description != kNullStringId) source.AddString("description", d.description);
  it->second =
      samples_->NewCounterTrack(d.name, ctx_->storage->Intern("stack_sample_session_counter"),
                                d.unit, std::nullopt, std::move(dims), std::move(source));
  return it->second;
}

std::optional<uint32_t> StackSampleParser::AsyncContext(const SequenceGeneration& gen, uint64_t iid,
                                                        int depth) {
  using AD = StackSample::AsyncContextDescriptor;
  auto key = std::make_pair(&gen, iid);
  if (auto it = async_.find(key); it != async_.end()) return it->second;
  const proto::Bytes* msg =
      gen.GetInterned(InternedData::kStackSampleAsyncContextDescriptorsFieldNumber, iid);
  if (!msg || depth > kMaxAsyncDepth) return std::nullopt;
  TraceStorage* s = ctx_->storage.get();
  StringId name = kNullStringId, kind = kNullStringId;
  std::optional<uint64_t> parent_iid;
  proto::Decoder d(*msg);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id == AD::kNameFieldNumber) name = s->Intern(f.as_string());
    if (f.id == AD::kKindFieldNumber) kind = s->Intern(f.as_string());
    if (f.id == AD::kParentIidFieldNumber) parent_iid = f.as_uint64();
  }
  std::optional<uint32_t> parent;
  if (parent_iid) parent = AsyncContext(gen, *parent_iid, depth + 1);
  uint32_t id = s->profile.profiler_async_context.Insert(name, kind, parent);
  async_[key] = id;
  return id;
}

std::optional<uint32_t> StackSampleParser::TaskContext(proto::Bytes msg,
                                                       const SequenceGeneration& gen) {
  using TC = StackSample::TaskContext;
  std::optional<int64_t> pid, tid;
  std::optional<uint64_t> async_id;
  proto::Decoder d(msg);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id == TC::kPidFieldNumber) pid = f.as_uint32();
    if (f.id == TC::kTidFieldNumber) tid = f.as_uint32();
    if (f.id == TC::kAsyncIdFieldNumber) async_id = f.as_uint64();
  }
  ProcessTracker* procs = ctx_->process_tracker.get();
  std::optional<uint32_t> upid, utid, async;
  if (pid) upid = procs->GetOrCreateProcess(*pid);
  if (tid) utid = pid ? procs->UpdateThread(*tid, *pid) : procs->GetOrCreateThread(*tid);
  if (async_id) async = AsyncContext(gen, *async_id, 0);
  return samples_->InternTaskContext(upid, utid, async);
}

uint32_t StackSampleParser::ExecutionContext(proto::Bytes msg) {
  using EC = StackSample::ExecutionContext;
  std::optional<uint32_t> cpu;
  const char* mode = nullptr;
  proto::Decoder d(msg);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id == EC::kCpuFieldNumber) cpu = f.as_uint32();
    if (f.id == EC::kModeFieldNumber) mode = ModeName(f.as_uint64());
  }
  return samples_->InternExecutionContext(cpu, mode ? ctx_->storage->Intern(mode) : kNullStringId);
}

StackSampleParser::StackSampleParser(TraceContext* ctx, ProfilerSampleTracker* samples,
                                     StackProfileTracker* stacks)
    : ctx_(ctx),
      samples_(samples),
      stacks_(stacks),
      inline_(ctx->storage.get(), stacks, "stack_sample_inline") {}

void StackSampleParser::Parse(int64_t ts, proto::Bytes payload, const SequenceGeneration& gen) {
  Stream& stream = StreamOf(gen);
  ProfilerSampleTable::Row row;
  row.ts = ts;
  row.source = stream.source;
  std::optional<Descriptor> primary = stream.primary;
  std::optional<uint64_t> primary_weight;
  std::vector<uint64_t> follower_weights;
  auto interned = [&](uint32_t field, uint64_t iid) { return gen.GetInterned(field, iid); };
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case StackSample::kTaskContextFieldNumber:
        row.task_context = TaskContext(f.bytes, gen);
        break;
      case StackSample::kTaskContextIidFieldNumber:
        if (auto* m = interned(InternedData::kStackSampleTaskContextsFieldNumber, f.as_uint64()))
          row.task_context = TaskContext(*m, gen);
        break;
      case StackSample::kExecutionContextFieldNumber:
        row.execution_context = ExecutionContext(f.bytes);
        break;
      case StackSample::kExecutionContextIidFieldNumber:
        if (auto* m =
                interned(InternedData::kStackSampleExecutionContextsFieldNumber, f.as_uint64()))
          row.execution_context = ExecutionContext(*m);
        break;
      case StackSample::kCallstackFieldNumber:
        row.callsite = inline_.Intern(f.bytes);
        break;
      case StackSample::kCallstackIidFieldNumber:
        row.callsite = stacks_->ResolveCallstack(InternedProfileIds(gen), &gen, f.as_uint64());
        break;
      case StackSample::kPrimaryDescriptorFieldNumber:
        primary = DecodeDescriptor(f.bytes);
        break;
      case StackSample::kPrimaryDescriptorIidFieldNumber:
        if (auto* m =
                interned(InternedData::kStackSampleCounterDescriptorsFieldNumber, f.as_uint64()))
          primary = DecodeDescriptor(*m);
        break;
      case StackSample::kPrimaryWeightFieldNumber:
        primary_weight = f.as_uint64();
        break;
      case StackSample::kFollowerWeightsFieldNumber:
        if (f.type == proto::WireType::kLengthDelimited) {
          proto::PackedVarints it(f.bytes);
          for (uint64_t v; it.Next(&v);) follower_weights.push_back(v);
        } else {
          follower_weights.push_back(f.as_uint64());
        }
        break;
    }
  }
  // The session's timebase unit is that of the first sample's primary counter.
  if (!stream.session)
    stream.session = samples_->NewSession(stream.source, primary ? primary->unit : kNullStringId);
  row.session = stream.session;
  std::vector<std::pair<uint32_t, double>> counters;
  if (primary && primary_weight)
    counters.emplace_back(CounterTrack(stream, *primary, true),
                          static_cast<double>(*primary_weight));
  for (size_t i = 0; i < follower_weights.size() && i < stream.followers.size(); ++i)
    counters.emplace_back(CounterTrack(stream, stream.followers[i], false),
                          static_cast<double>(follower_weights[i]));
  samples_->AddSample(row, counters);
}

}  // namespace fathom
