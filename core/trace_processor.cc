#include "core/trace_processor.h"

#include <cstring>

#include "core/import/chunk_reader.h"
#include "core/import/ftrace_parser.h"
#include "core/import/json_tokenizer.h"
#include "core/import/json_trace_parser.h"
#include "core/import/packet_parser.h"
#include "core/import/proto_tokenizer.h"
#include "core/import/systrace_text_tokenizer.h"
#include "core/import/sorter.h"
#include "core/import/trace_context.h"
#include "core/import/trace_format.h"

namespace fathom {
namespace {

constexpr size_t kChunkSize = 16 << 20;
// No real TracePacket comes near this; a longer declared length is corruption.
constexpr uint64_t kMaxPacketSize = 256ull << 20;

std::string At(const std::string& name, uint64_t offset) {
  return name + ": byte offset " + std::to_string(offset) + ": ";
}

}  // namespace

TraceProcessor::TraceProcessor() : ctx_(new TraceContext()) {
  sql_.reset(new SqlEngine(ctx_->storage.get()));
  Status st = sql_->Init();
  (void)st;  // Init only fails if SQLite itself is broken; queries report it.
}

TraceProcessor::~TraceProcessor() = default;

TraceStorage& TraceProcessor::storage() { return *ctx_->storage; }
const TraceStorage& TraceProcessor::storage() const { return *ctx_->storage; }

std::unique_ptr<QueryIterator> TraceProcessor::Query(std::string sql) {
  return sql_->Query(std::move(sql));
}

Status TraceProcessor::LoadFile(const std::string& path, const ProgressCallback& progress) {
  auto reader = OpenTraceFile(path);
  if (!reader.ok()) return reader.status();
  return Load(reader->get(), path, progress);
}

Status TraceProcessor::LoadBuffer(const uint8_t* data, size_t size, const std::string& name) {
  auto reader = MakeMemoryReader(data, size);
  return Load(reader.get(), name, {});
}

Status TraceProcessor::Load(ChunkReader* reader, const std::string& name,
                            const ProgressCallback& progress) {
  report_ = LoadReport();
  report_.file_bytes = reader->file_size();
  ctx_->trace_size_bytes = reader->file_size();

  Sorter sorter;
  std::unique_ptr<ChunkedTokenizer> tokenizer;
  ProtoTokenizer* proto_tokenizer = nullptr;
  JsonTokenizer* json_tokenizer = nullptr;
  SystraceTextTokenizer* text_tokenizer = nullptr;
  JsonTraceParser json_parser(ctx_.get());
  TraceFormat format = TraceFormat::kUnknown;
  LoadProgress prog;
  prog.file_size = reader->file_size();

  std::vector<uint8_t> leftover;
  uint64_t stream_offset = 0;  // stream offset of the next byte to read
  bool first = true;
  while (true) {
    auto blob = TraceBlob::Allocate(leftover.size() + kChunkSize);
    memcpy(blob->data.get(), leftover.data(), leftover.size());
    auto n = reader->Read(blob->data.get() + leftover.size(), kChunkSize);
    if (!n.ok()) {
      report_.warnings.push_back(name + ": " + n.status().message() +
                                 "; loaded what came before");
      break;
    }
    if (*n == 0) break;
    blob->size = leftover.size() + *n;
    uint64_t blob_offset = stream_offset - leftover.size();
    stream_offset += *n;
    if (first) {
      first = false;
      TraceFormat fmt = DetectTraceFormat(blob->data.get(), blob->size);
      format = fmt;
      report_.format = TraceFormatName(fmt);
      if (reader->wrapper()) report_.format += std::string(" (") + reader->wrapper() + ")";
      if (fmt == TraceFormat::kUnknown)
        return ErrorStatus(At(name, 0) +
                           "unknown trace format: expected a Perfetto protobuf trace (first byte "
                           "0x0A), gzip/zstd, JSON or systrace text");
      if (fmt == TraceFormat::kProto) {
        proto_tokenizer = new ProtoTokenizer(ctx_.get(), &sorter);
        tokenizer.reset(proto_tokenizer);
      } else if (fmt == TraceFormat::kJson) {
        json_tokenizer = new JsonTokenizer(ctx_.get(), &sorter);
        tokenizer.reset(json_tokenizer);
      } else if (fmt == TraceFormat::kSystraceText || fmt == TraceFormat::kSystraceHtml) {
        // HTML pages keep the same text lines in their trace-data blocks (or
        // an escaped JavaScript string); lines that are not events are skipped.
        text_tokenizer = new SystraceTextTokenizer(ctx_.get(), &sorter);
        tokenizer.reset(text_tokenizer);
      } else {
        return ErrorStatus(name + ": " + TraceFormatName(fmt) +
                           " traces are not supported by this build yet");
      }
    }
    const uint8_t* base = blob->data.get();
    size_t size = blob->size;
    auto rest = tokenizer->Feed(std::move(blob), blob_offset);  // keeps the blob alive
    if (!rest.ok()) {
      uint64_t dropped = reader->file_size() > blob_offset ? reader->file_size() - blob_offset : 0;
      report_.warnings.push_back(name + ": " + rest.status().message() +
                                 "; the rest of the file was not loaded");
      ctx_->storage->stats.Increment(Stat::kProtoDecodeErrors);
      (void)dropped;
      leftover.clear();
      break;
    }
    leftover.assign(base + size - *rest, base + size);
    // A packet that declares more bytes than any real packet has is corrupt:
    // stop instead of buffering the rest of the file.
    if (format == TraceFormat::kProto && leftover.size() > 1) {
      uint64_t len = 0;
      const uint8_t* q = proto::ReadVarint(leftover.data() + 1, leftover.data() + leftover.size(), &len);
      if (q && len > kMaxPacketSize) {
        uint64_t off = stream_offset - leftover.size();
        report_.warnings.push_back(At(name, off) + "packet declares " + std::to_string(len) +
                                   " bytes, more than any valid packet; the rest of the file "
                                   "was not loaded");
        ctx_->storage->stats.Increment(Stat::kProtoDecodeErrors);
        leftover.clear();
        break;
      }
    }
    prog.bytes_read = reader->file_offset();
    prog.packets = tokenizer->units();
    prog.events = sorter.size();
    if (progress && !progress(prog)) return ErrorStatus(name + ": load cancelled");
  }
  if (first) return ErrorStatus(At(name, 0) + "the file is empty");
  if (std::string w = reader->end_warning(); !w.empty()) report_.warnings.push_back(name + ": " + w);
  if (text_tokenizer && !leftover.empty()) {
    // Text may end without a newline: the last line is whole.
    text_tokenizer->FinishLastLine(
        std::string_view(reinterpret_cast<const char*>(leftover.data()), leftover.size()));
    leftover.clear();
  }
  if (!leftover.empty()) {
    uint64_t off = stream_offset - leftover.size();
    report_.warnings.push_back(At(name, off) + "trace is truncated: the last " +
                               std::to_string(leftover.size()) +
                               " bytes do not form a whole packet and were dropped");
    ctx_->storage->stats.Increment(Stat::kTraceTruncated, static_cast<int64_t>(leftover.size()));
  }
  if (json_tokenizer) {
    for (const std::string& key : json_tokenizer->unsupported_keys())
      report_.warnings.push_back(name + ": JSON key \"" + key + "\" is not imported by this build");
  }
  if (tokenizer->units() == 0)
    return ErrorStatus(At(name, 0) + "no trace packets or events could be read" +
                       (report_.warnings.empty() ? "" : " (" + report_.warnings.front() + ")"));

  // Sort and parse.
  report_.packets = tokenizer->units();
  report_.events = sorter.size();
  report_.peak_sort_bytes = sorter.memory_bytes() + tokenizer->retained_bytes();
  prog.phase = LoadProgress::kSorting;
  prog.events_total = sorter.size();
  prog.events = 0;
  ctx_->storage->ReserveForImport(sorter.count(SortKind::kFtraceEvent),
                                  sorter.count(SortKind::kCompactSwitch),
                                  sorter.count(SortKind::kCompactWaking),
                                  sorter.count(SortKind::kTracePacket));
  bool cancelled = false;
  uint64_t parsed = 0;
  TraceContext* ctx = ctx_.get();
  sorter.DrainSorted([&](const SortEntry& e) {
    if (cancelled) return;
    switch (e.kind) {
      case SortKind::kFtraceEvent:
        ctx->ftrace_parser->ParseFtraceEvent(e.ts, e.cpu, proto::Bytes{e.data, e.size},
                                             proto_tokenizer ? &proto_tokenizer->generation(e.aux)
                                                             : nullptr);
        break;
      case SortKind::kCompactSwitch:
        ctx->ftrace_parser->ParseCompactSwitch(e.ts, e.cpu, proto_tokenizer->compact_switch(e.aux));
        break;
      case SortKind::kCompactWaking:
        ctx->ftrace_parser->ParseCompactWaking(e.ts, e.cpu, proto_tokenizer->compact_waking(e.aux));
        break;
      case SortKind::kTracePacket:
        ctx->packet_parser->ParsePacket(e.ts, proto::Bytes{e.data, e.size},
                                        proto_tokenizer->generation(e.aux));
        break;
      case SortKind::kJsonEvent:
        json_parser.ParseEvent(e.ts, proto::Bytes{e.data, e.size});
        break;
    }
    if ((++parsed & 0xfffff) == 0 && progress) {
      prog.events = parsed;
      if (!progress(prog)) cancelled = true;
    }
  });
  if (cancelled) return ErrorStatus(name + ": load cancelled");
  ctx_->OnImportFinished();
  prog.phase = LoadProgress::kDone;
  prog.events = parsed;
  if (progress) progress(prog);
  return Status::Ok();
}

}  // namespace fathom
