#include "core/import/simpleperf_proto_parser.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/import/process_tracker.h"
#include "core/import/profile_parser.h"
#include "core/import/profile_stack_tracker.h"
#include "core/import/profiler_sample_tracker.h"
#include "core/import/proto_decoder.h"
#include "core/import/trace_context.h"

namespace fathom {

namespace {

constexpr std::string_view kMagic = "SIMPLEPERF";
constexpr size_t kHeaderSize = 12;  // magic + uint16 version

// cmd_report_sample.proto field numbers.
namespace field {
constexpr uint32_t kRecordSample = 1, kRecordFile = 3, kRecordThread = 4;
constexpr uint32_t kSampleTime = 1, kSampleThreadId = 2, kSampleCallchain = 3;
constexpr uint32_t kEntryVaddrInFile = 1, kEntryFileId = 2, kEntrySymbolId = 3;
constexpr uint32_t kFileId = 1, kFilePath = 2, kFileSymbol = 3;
constexpr uint32_t kThreadId = 1, kThreadProcessId = 2, kThreadName = 3;
}  // namespace field

struct CallchainEntry {
  uint64_t vaddr_in_file = 0;
  uint32_t file_id = 0;
  int32_t symbol_id = 0;  // proto default
};

struct Sample {
  int64_t ts = 0;
  int64_t tid = 0;
  size_t first_entry = 0, entry_count = 0;  // into Decoded::entries
};

struct ThreadRecord {
  int64_t tid = 0, pid = 0;
  std::optional<std::string_view> name;
};

// A File record as it stands after the whole file was read.
struct FileInfo {
  uint32_t mapping = 0;
  std::vector<std::string_view> symbols;
};

// A sample or thread record, in the order upstream applies them.
struct Step {
  int64_t ts;
  bool is_sample;
  size_t index;
};

struct Decoded {
  std::vector<Sample> samples;
  std::vector<CallchainEntry> entries;
  std::vector<ThreadRecord> threads;
  std::unordered_map<uint32_t, FileInfo> files;
  std::vector<Step> steps;
  uint64_t records = 0;
};

Status DecodeSample(proto::Bytes msg, Decoded* out) {
  Sample s;
  s.first_entry = out->entries.size();
  proto::Decoder d(msg);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id == field::kSampleTime) s.ts = f.as_int64();
    if (f.id == field::kSampleThreadId) s.tid = f.as_int32();
    if (f.id != field::kSampleCallchain || f.type != proto::WireType::kLengthDelimited) continue;
    CallchainEntry e;
    proto::Decoder ed(f.bytes);
    for (proto::Field g = ed.Next(); g.valid(); g = ed.Next()) {
      if (g.id == field::kEntryVaddrInFile) e.vaddr_in_file = g.as_uint64();
      if (g.id == field::kEntryFileId) e.file_id = g.as_uint32();
      if (g.id == field::kEntrySymbolId) e.symbol_id = g.as_int32();
    }
    if (ed.error()) return ErrorStatus("malformed callchain entry");
    out->entries.push_back(e);
  }
  if (d.error()) return ErrorStatus("malformed Sample");
  s.entry_count = out->entries.size() - s.first_entry;
  out->samples.push_back(s);
  return Status::Ok();
}

Status DecodeFile(TraceContext* ctx, proto::Bytes msg, Decoded* out) {
  uint32_t id = 0;
  std::string_view path;
  FileInfo info;
  proto::Decoder d(msg);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id == field::kFileId) id = f.as_uint32();
    if (f.id == field::kFilePath) path = f.as_string();
    if (f.id == field::kFileSymbol) info.symbols.push_back(f.as_string());
  }
  if (d.error()) return ErrorStatus("malformed File");
  // simpleperf knows files by path only: no build id, whole address space.
  TraceStorage* s = ctx->storage.get();
  info.mapping = ctx->profile_parser->stack_tracker()->InternMapping(
      s->Intern(""), 0, 0, 0, static_cast<int64_t>(std::numeric_limits<uint64_t>::max()), 0,
      s->Intern(path));
  out->files[id] = std::move(info);
  return Status::Ok();
}

Status DecodeThread(proto::Bytes msg, Decoded* out) {
  ThreadRecord t;
  proto::Decoder d(msg);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id == field::kThreadId) t.tid = f.as_uint32();
    if (f.id == field::kThreadProcessId) t.pid = f.as_uint32();
    if (f.id == field::kThreadName) t.name = f.as_string();
  }
  if (d.error()) return ErrorStatus("malformed Thread");
  out->threads.push_back(t);
  return Status::Ok();
}

// Reads every record; File records are interned on the way.
Status DecodeRecords(TraceContext* ctx, const uint8_t* data, size_t size, Decoded* out) {
  // A Thread record has no time: it goes after the sample that precedes it.
  int64_t last_sample_ts = std::numeric_limits<int64_t>::min();
  size_t pos = kHeaderSize;
  while (true) {
    if (size - pos < 4) return ErrorStatus("truncated record size");
    uint32_t len;
    memcpy(&len, data + pos, 4);  // little endian, as every simpleperf host
    pos += 4;
    if (len == 0) return Status::Ok();
    if (len > size - pos) return ErrorStatus("record larger than the file");
    ++out->records;
    proto::Decoder d(data + pos, len);
    for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
      if (f.type != proto::WireType::kLengthDelimited) continue;
      Status st = Status::Ok();
      if (f.id == field::kRecordSample) {
        st = DecodeSample(f.bytes, out);
        if (st.ok()) {
          last_sample_ts = out->samples.back().ts;
          out->steps.push_back({last_sample_ts, true, out->samples.size() - 1});
        }
      } else if (f.id == field::kRecordFile) {
        st = DecodeFile(ctx, f.bytes, out);
      } else if (f.id == field::kRecordThread) {
        st = DecodeThread(f.bytes, out);
        if (st.ok()) out->steps.push_back({last_sample_ts, false, out->threads.size() - 1});
      }
      if (!st.ok()) return ErrorStatus("byte offset " + std::to_string(pos) + ": " + st.message());
    }
    if (d.error()) return ErrorStatus("byte offset " + std::to_string(pos) + ": malformed Record");
    pos += len;
  }
}

// The leaf callsite of sample `s`, or nullopt when an entry names no file.
std::optional<uint32_t> InternCallchain(TraceContext* ctx, const Decoded& dec, const Sample& s) {
  StackProfileTracker* st = ctx->profile_parser->stack_tracker();
  TraceStorage* storage = ctx->storage.get();
  for (size_t i = 0; i < s.entry_count; ++i)
    if (!dec.files.count(dec.entries[s.first_entry + i].file_id)) return std::nullopt;
  std::optional<uint32_t> callsite;
  for (size_t i = s.entry_count; i-- > 0;) {  // entries are leaf first
    const CallchainEntry& e = dec.entries[s.first_entry + i];
    const FileInfo& file = dec.files.at(e.file_id);
    StringId name = kNullStringId;
    if (e.symbol_id >= 0 && static_cast<size_t>(e.symbol_id) < file.symbols.size())
      name = storage->Intern(file.symbols[static_cast<size_t>(e.symbol_id)]);
    uint32_t frame =
        st->InternFrame(file.mapping, static_cast<int64_t>(e.vaddr_in_file), name, kNullStringId);
    callsite = st->InternCallsite(callsite, frame);
  }
  return callsite;
}

void ApplySteps(TraceContext* ctx, Decoded& dec, SimpleperfImportResult* r) {
  std::stable_sort(dec.steps.begin(), dec.steps.end(),
                   [](const Step& a, const Step& b) { return a.ts < b.ts; });
  TraceStorage* s = ctx->storage.get();
  ProcessTracker* pt = ctx->process_tracker.get();
  // Each sample is also a stack_sample row (source "simpleperf", its thread as
  // task context), which stacks.cpu_profiling reads, as upstream's.
  ProfilerSampleTracker samples(ctx);
  const StringId source = s->Intern("simpleperf");
  for (const Step& step : dec.steps) {
    if (!step.is_sample) {
      const ThreadRecord& t = dec.threads[step.index];
      // As upstream: the process (with its main thread) exists before the
      // thread is bound to it, so a new process's main thread is numbered first.
      pt->GetOrCreateProcess(t.pid);
      uint32_t utid = pt->UpdateThread(t.tid, t.pid);
      if (t.name) pt->UpdateThreadName(utid, s->Intern(*t.name), ThreadNamePriority::kProcessTree);
      continue;
    }
    const Sample& sample = dec.samples[step.index];
    uint32_t utid = pt->GetOrCreateThread(sample.tid);
    if (sample.entry_count == 0) continue;  // nothing to attribute the sample to
    std::optional<uint32_t> callsite = InternCallchain(ctx, dec, sample);
    if (!callsite) {
      ++r->dropped_samples;
      continue;
    }
    s->profile.cpu_profile_stack_sample.Insert(sample.ts, *callsite, utid, 0);
    ProfilerSampleTable::Row row;
    row.ts = sample.ts;
    row.source = source;
    row.task_context = samples.InternTaskContext(std::nullopt, utid, std::nullopt);
    row.callsite = *callsite;
    samples.AddSample(row, {});
    s->UpdateBounds(sample.ts);
    ++r->imported_samples;
  }
}

}  // namespace

bool LooksLikeSimpleperfProto(const uint8_t* data, size_t size) {
  return size >= kMagic.size() && memcmp(data, kMagic.data(), kMagic.size()) == 0;
}

Result<SimpleperfImportResult> ImportSimpleperfProto(TraceContext* ctx, const uint8_t* data,
                                                     size_t size) {
  if (size < kHeaderSize || !LooksLikeSimpleperfProto(data, size))
    return ErrorStatus("not a simpleperf report-sample file");
  Decoded dec;
  Status decoded = DecodeRecords(ctx, data, size, &dec);
  SimpleperfImportResult r;
  r.records = dec.records;
  r.samples = dec.samples.size();
  ApplySteps(ctx, dec, &r);  // what was read before any error is kept
  if (!decoded.ok()) return decoded;
  return r;
}

}  // namespace fathom
