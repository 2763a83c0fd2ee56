#include "core/import/profile_parser.h"

#include <algorithm>

#include "core/import/clock_tracker.h"
#include "core/import/native_symbol_args.h"
#include "core/import/process_tracker.h"
#include "core/import/proto_tokenizer.h"
#include "core/import/sequence_state.h"
#include "core/import/trace_context.h"
#include "perfetto/trace/interned_data.pb.h"
#include "perfetto/trace/profiling/profile_common.pb.h"
#include "perfetto/trace/profiling/profile_packet.pb.h"

namespace fathom {

using perfetto::protos::AddressSymbols;
using perfetto::protos::ArtProcessMetadata;
using perfetto::protos::InternedData;
using perfetto::protos::InternedString;
using perfetto::protos::JavaFrame;
using perfetto::protos::JavaStack;
using perfetto::protos::Line;
using perfetto::protos::ModuleSymbols;
using perfetto::protos::PerfSample;
using perfetto::protos::Profiling;
using perfetto::protos::StackSample;
using perfetto::protos::StreamingProfilePacket;

namespace {

// One occurrence of a repeated varint field, packed or not.
void AppendVarints(const proto::Field& f, std::vector<uint64_t>* out) {
  if (f.type == proto::WireType::kVarint) {
    out->push_back(f.int_value);
    return;
  }
  if (f.type != proto::WireType::kLengthDelimited) return;
  proto::PackedVarints it(f.bytes);
  uint64_t v;
  while (it.Next(&v)) out->push_back(v);
}

const char* CpuModeName(uint64_t mode) {
  switch (mode) {
    case Profiling::MODE_KERNEL:
      return "kernel";
    case Profiling::MODE_USER:
      return "user";
    case Profiling::MODE_HYPERVISOR:
      return "hypervisor";
    case Profiling::MODE_GUEST_KERNEL:
      return "guest_kernel";
    case Profiling::MODE_GUEST_USER:
      return "guest_user";
    default:
      return "unknown";
  }
}

const char* UnwindErrorName(uint64_t e) {
  static const char* kNames[] = {"UNWIND_ERROR_UNKNOWN",
                                 "UNWIND_ERROR_NONE",
                                 "UNWIND_ERROR_MEMORY_INVALID",
                                 "UNWIND_ERROR_UNWIND_INFO",
                                 "UNWIND_ERROR_UNSUPPORTED",
                                 "UNWIND_ERROR_INVALID_MAP",
                                 "UNWIND_ERROR_MAX_FRAMES_EXCEEDED",
                                 "UNWIND_ERROR_REPEATED_FRAME",
                                 "UNWIND_ERROR_INVALID_ELF",
                                 "UNWIND_ERROR_SYSTEM_CALL",
                                 "UNWIND_ERROR_THREAD_TIMEOUT",
                                 "UNWIND_ERROR_THREAD_DOES_NOT_EXIST",
                                 "UNWIND_ERROR_BAD_ARCH",
                                 "UNWIND_ERROR_MAPS_PARSE",
                                 "UNWIND_ERROR_INVALID_PARAMETER",
                                 "UNWIND_ERROR_PTRACE_CALL"};
  return e < std::size(kNames) ? kNames[e] : "UNWIND_ERROR_UNKNOWN";
}

// "void com.foo.Bar.baz(int, java.lang.String)" -> "com.foo.Bar.baz".
std::string_view JavaMethodName(std::string_view m) {
  size_t paren = m.find('(');
  if (paren != std::string_view::npos) m = m.substr(0, paren);
  size_t space = m.rfind(' ');
  if (space != std::string_view::npos) m = m.substr(space + 1);
  return m;
}

}  // namespace

ProfileParser::ProfileParser(TraceContext* ctx)
    : ctx_(ctx),
      stacks_(ctx->storage.get()),
      profiler_samples_(ctx),
      perf_sessions_(ctx, &profiler_samples_),
      stack_samples_(ctx, &profiler_samples_, &stacks_),
      heapprofd_(ctx, &stacks_) {}
ProfileParser::~ProfileParser() = default;

void ProfileParser::ParseProfilePacket(int64_t ts, proto::Bytes payload,
                                       const SequenceGeneration& gen) {
  heapprofd_.ParseProfilePacket(ts, payload, gen);
}

void ProfileParser::ParsePerfSample(int64_t ts, proto::Bytes payload,
                                    const SequenceGeneration& gen) {
  TraceStorage* s = ctx_->storage.get();
  std::optional<uint32_t> cpu;
  int64_t pid = 0, tid = 0;
  uint64_t callstack_iid = 0, cpu_mode = 0;
  std::optional<uint64_t> unwind_error, timebase_count;
  std::vector<uint64_t> follower_counts;
  bool not_a_sample = false;
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case PerfSample::kCpuFieldNumber:
        cpu = f.as_uint32();
        break;
      case PerfSample::kPidFieldNumber:
        pid = f.as_uint32();
        break;
      case PerfSample::kTidFieldNumber:
        tid = f.as_uint32();
        break;
      case PerfSample::kCallstackIidFieldNumber:
        callstack_iid = f.as_uint64();
        break;
      case PerfSample::kCpuModeFieldNumber:
        cpu_mode = f.as_uint64();
        break;
      case PerfSample::kUnwindErrorFieldNumber:
        unwind_error = f.as_uint64();
        break;
      case PerfSample::kTimebaseCountFieldNumber:
        timebase_count = f.as_uint64();
        break;
      case PerfSample::kFollowerCountsFieldNumber:
        AppendVarints(f, &follower_counts);
        break;
      case PerfSample::kKernelRecordsLostFieldNumber:
        s->stats.Increment(Stat::kPerfKernelRecordsLost, f.as_int64());
        not_a_sample = true;
        break;
      case PerfSample::kProducerEventFieldNumber:
        not_a_sample = true;
        break;
    }
  }
  // A sample skipped by the profiler (sample_skipped_reason) has no stack
  // but still is a sample with its counter values, as upstream keeps it.
  if (not_a_sample) return;
  uint32_t utid = ctx_->process_tracker->UpdateThread(tid, pid);
  std::optional<uint32_t> upid = ctx_->process_tracker->GetUpidOfThread(utid);
  std::optional<uint32_t> callsite;
  if (callstack_iid) {
    // As upstream, a mapping is the own row of the process whose sample
    // first resolves it on the sequence.
    InternedProfileIds ids(gen, upid);
    callsite = stacks_.ResolveCallstack(ids, &gen, callstack_iid);
  }
  StringId unwind = unwind_error ? s->Intern(UnwindErrorName(*unwind_error)) : kNullStringId;
  uint32_t session = perf_sessions_.Session(gen);

  ProfilerSampleTable::Row row;
  row.ts = ts;
  row.source = s->Intern("linux.perf");
  row.task_context = profiler_samples_.InternTaskContext(upid, utid, {});
  // The execution context needs the cpu; an unknown mode is left NULL.
  if (cpu) {
    StringId mode = cpu_mode ? s->Intern(CpuModeName(cpu_mode)) : kNullStringId;
    row.execution_context = profiler_samples_.InternExecutionContext(cpu, mode);
  }
  row.callsite = callsite;
  row.unwind_error = unwind;
  row.session = session;
  // Counter tracks of a sample without a cpu are those of cpu 0, as upstream.
  profiler_samples_.AddSample(
      row, perf_sessions_.CounterValues(gen, cpu.value_or(0), timebase_count, follower_counts));
  s->profile.perf_sample.Insert(ts, utid, cpu, s->Intern(CpuModeName(cpu_mode)), callsite, unwind,
                                session);
  s->UpdateBounds(ts);
}

void ProfileParser::TokenizeStreamingProfilePacket(const PacketView& p, ProtoTokenizer* tokenizer) {
  SequenceGeneration& gen = tokenizer->mutable_generation(p.generation);
  // Chrome writes the reference time in CLOCK_MONOTONIC (as upstream reads
  // it); without a clock path to the trace clock the raw value is kept.
  int64_t base = gen.reference_timestamp_ns;
  if (auto t = tokenizer->ToTraceTime(p.sequence_id, kClockMonotonic, base)) base = *t;
  std::vector<uint64_t> deltas;
  proto::Decoder d(p.payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next())
    if (f.id == StreamingProfilePacket::kTimestampDeltaUsFieldNumber) AppendVarints(f, &deltas);
  for (size_t i = 0; i < deltas.size() && !gen.reference_timestamp_invalid; ++i) {
    int64_t delta_ns, sum;
    if (__builtin_mul_overflow(static_cast<int64_t>(deltas[i]), int64_t{1000}, &delta_ns) ||
        __builtin_add_overflow(gen.reference_timestamp_ns, delta_ns, &sum)) {
      // As upstream: this sample and every later one of the sequence has no
      // usable time; they are dropped and counted.
      gen.reference_timestamp_invalid = true;
      ctx_->storage->stats.Increment(Stat::kStreamingProfileInvalidTimestamp,
                                     static_cast<int64_t>(deltas.size() - i));
      return;
    }
    gen.reference_timestamp_ns = sum;
  }
  if (gen.reference_timestamp_invalid) {
    ctx_->storage->stats.Increment(Stat::kStreamingProfileInvalidTimestamp,
                                   static_cast<int64_t>(deltas.size()));
    return;
  }
  streaming_[p.payload.data] = {base, gen.pid_tid_valid ? gen.pid : 0,
                                gen.pid_tid_valid ? gen.tid : 0};
  tokenizer->PushPacket(p, base);
}

void ProfileParser::ParseStreamingProfilePacket(int64_t ts, proto::Bytes payload,
                                                const SequenceGeneration& gen) {
  TraceStorage* s = ctx_->storage.get();
  auto info = streaming_.find(payload.data);
  if (info == streaming_.end()) return;
  std::vector<uint64_t> callstacks, deltas;
  int32_t priority = 0;
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id == StreamingProfilePacket::kCallstackIidFieldNumber) AppendVarints(f, &callstacks);
    if (f.id == StreamingProfilePacket::kTimestampDeltaUsFieldNumber) AppendVarints(f, &deltas);
    if (f.id == StreamingProfilePacket::kProcessPriorityFieldNumber) priority = f.as_int32();
  }
  if (d.error()) {
    s->stats.Increment(Stat::kStackProfileParserError);
    return;
  }
  uint32_t utid = ctx_->process_tracker->UpdateThread(info->second.tid, info->second.pid);
  InternedProfileIds ids(gen);
  ts = info->second.base_ts;
  for (size_t i = 0; i < callstacks.size(); ++i) {
    if (i >= deltas.size()) {  // fewer times than callstacks: the rest has no time
      s->stats.Increment(Stat::kStackProfileParserError,
                         static_cast<int64_t>(callstacks.size() - i));
      break;
    }
    ts += deltas[i] * 1000;  // unsigned: no UB
    std::optional<uint32_t> callsite = stacks_.ResolveCallstack(ids, &gen, callstacks[i]);
    if (!callsite) {
      s->stats.Increment(Stat::kStackProfileParserError);
      continue;
    }
    s->profile.cpu_profile_stack_sample.Insert(ts, *callsite, utid, priority);
    s->UpdateBounds(ts);
  }
  streaming_.erase(info);
}

void ProfileParser::ParseStackSample(int64_t ts, proto::Bytes payload,
                                     const SequenceGeneration& gen) {
  stack_samples_.Parse(ts, payload, gen);
}

void ProfileParser::ParseModuleSymbols(proto::Bytes payload) {
  module_symbols_.emplace_back(reinterpret_cast<const char*>(payload.data), payload.size);
}

void ProfileParser::ApplyModuleSymbols(proto::Bytes payload) {
  TraceStorage* s = ctx_->storage.get();
  std::string_view path, build_id;
  std::vector<proto::Bytes> addresses;
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id == ModuleSymbols::kPathFieldNumber) path = f.as_string();
    if (f.id == ModuleSymbols::kBuildIdFieldNumber) build_id = f.as_string();
    if (f.id == ModuleSymbols::kAddressSymbolsFieldNumber) addresses.push_back(f.bytes);
  }
  auto& frames = s->profile.stack_profile_frame;
  auto& symbols = s->profile.stack_profile_symbol;
  for (uint32_t m : MappingsOfModule(*s, path, build_id)) {
    // By rel_pc: a library can have many thousands of frames and addresses.
    std::unordered_map<int64_t, std::vector<uint32_t>> frames_at;
    for (uint32_t frame : stacks_.FramesOfMapping(m))
      frames_at[frames.rel_pc[frame]].push_back(frame);
    for (proto::Bytes a : addresses) {
      int64_t address = 0;
      std::vector<proto::Bytes> lines;
      proto::Decoder ad(a);
      for (proto::Field f = ad.Next(); f.valid(); f = ad.Next()) {
        if (f.id == AddressSymbols::kAddressFieldNumber) address = f.as_int64();
        if (f.id == AddressSymbols::kLinesFieldNumber) lines.push_back(f.bytes);
      }
      if (lines.empty()) continue;
      auto at = frames_at.find(address);
      if (at == frames_at.end()) continue;
      for (uint32_t frame : at->second) {
        uint32_t set_id = symbols.row_count();
        for (proto::Bytes line : lines) {
          StringId fn = kNullStringId, file = kNullStringId;
          std::optional<uint32_t> line_no;
          proto::Decoder ld(line);
          for (proto::Field f = ld.Next(); f.valid(); f = ld.Next()) {
            if (f.id == Line::kFunctionNameFieldNumber) fn = s->Intern(f.as_string());
            if (f.id == Line::kSourceFileNameFieldNumber) file = s->Intern(f.as_string());
            if (f.id == Line::kLineNumberFieldNumber) line_no = f.as_uint32();
          }
          symbols.Insert(set_id, fn, file, line_no);
        }
        frames.symbol_set_id.Set(frame, set_id);
      }
    }
  }
}

void ProfileParser::ParseArtProcessMetadata(int64_t ts, proto::Bytes payload) {
  TraceStorage* s = ctx_->storage.get();
  int64_t pid = 0;
  int64_t alloc_size = 0, total_free = 0, until_oom = 0;
  bool is_oome = false;
  StringId error_msg = kNullStringId;
  std::optional<proto::Bytes> stack;
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case ArtProcessMetadata::kPidFieldNumber:
        pid = f.as_int32();
        break;
      case ArtProcessMetadata::kOomAllocationSizeFieldNumber:
        alloc_size = f.as_int64();
        is_oome = true;
        break;
      case ArtProcessMetadata::kOomTotalBytesFreeFieldNumber:
        total_free = f.as_int64();
        break;
      case ArtProcessMetadata::kOomFreeBytesUntilOomFieldNumber:
        until_oom = f.as_int64();
        break;
      case ArtProcessMetadata::kOomErrorMsgFieldNumber:
        error_msg = s->Intern(f.as_string());
        break;
      case ArtProcessMetadata::kOomThreadJavaStackFieldNumber:
        stack = f.bytes;
        break;
    }
  }
  if (!stack && !is_oome) return;
  uint32_t upid = ctx_->process_tracker->GetOrCreateProcess(pid);
  uint32_t utid = ctx_->process_tracker->UpdateThread(pid, pid);

  // As upstream, the OOME is a heap_graph row of its own (dump_reason "OOME"
  // when the allocation that failed is known); a heap dump of the same
  // process and time that follows fills it in (HeapGraphParser::Finalize).
  uint32_t graph = s->profile.heap_graph.Insert(ts, upid, std::nullopt);
  if (is_oome) s->profile.heap_graph.dump_reason.Set(graph, s->Intern("OOME"));
  s->profile.heap_graph_java_oome_details.Insert(graph, alloc_size, total_free, until_oom,
                                                 error_msg);
  if (!stack) return;

  // Java frames come leaf first; callsites are built root first. Each
  // (method, file, line) is its own frame so its symbol keeps the line.
  std::vector<proto::Bytes> java_frames;
  proto::Decoder sd(*stack);
  for (proto::Field f = sd.Next(); f.valid(); f = sd.Next())
    if (f.id == JavaStack::kFramesFieldNumber) java_frames.push_back(f.bytes);
  uint32_t mapping = stacks_.InternMapping(kNullStringId, 0, 0, 0, 0, 0, s->Intern("JAVA"));
  auto& frames = s->profile.stack_profile_frame;
  auto& symbols = s->profile.stack_profile_symbol;
  std::optional<uint32_t> callsite;
  for (auto it = java_frames.rbegin(); it != java_frames.rend(); ++it) {
    std::string_view method, file;
    std::optional<uint32_t> line;
    proto::Decoder fd(*it);
    for (proto::Field f = fd.Next(); f.valid(); f = fd.Next()) {
      if (f.id == JavaFrame::kMethodNameFieldNumber) method = f.as_string();
      if (f.id == JavaFrame::kSourceFileFieldNumber) file = f.as_string();
      if (f.id == JavaFrame::kLineNumberFieldNumber) line = f.as_uint32();
    }
    StringId name = s->Intern(JavaMethodName(method));
    StringId file_id = file.empty() ? kNullStringId : s->Intern(file);
    auto key = std::make_tuple(name, file_id, line.value_or(0));
    auto [fit, inserted] = java_frames_.try_emplace(key, 0);
    if (inserted) {
      fit->second = frames.Insert(name, mapping, 0, kNullStringId);
      uint32_t set_id = symbols.row_count();
      symbols.Insert(set_id, name, file_id, line);
      frames.symbol_set_id.Set(fit->second, set_id);
    }
    callsite = stacks_.InternCallsite(callsite, fit->second);
  }
  s->profile.heap_graph_thread_callsite.Insert(graph, utid, callsite);
}

void ProfileParser::OnImportFinished() {
  heapprofd_.OnImportFinished();
  for (const std::string& m : module_symbols_)
    ApplyModuleSymbols({reinterpret_cast<const uint8_t*>(m.data()), m.size()});
}

void ProfileParser::OnArgsFinished() {
  TranslateNativeSymbolArgs(ctx_->storage.get(), module_symbols_);
  module_symbols_.clear();
}

}  // namespace fathom
