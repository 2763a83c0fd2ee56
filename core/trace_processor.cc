#include "core/trace_processor.h"

#include <algorithm>
#include <cstring>
#include <deque>

#include "core/import/archive_reader.h"
#include "core/import/art_alloc_log_tokenizer.h"
#include "core/import/chunk_reader.h"
#include "core/import/collapsed_stacks.h"
#include "core/import/ftrace_parser.h"
#include "core/import/json_tokenizer.h"
#include "core/import/json_trace_parser.h"
#include "core/import/packet_parser.h"
#include "core/import/pprof_tokenizer.h"
#include "core/import/proto_tokenizer.h"
#include "core/import/read_ahead.h"
#include "core/import/sorted_batches.h"
#include "core/import/sorter.h"
#include "core/import/systrace_html.h"
#include "core/import/systrace_text_tokenizer.h"
#include "core/import/trace_context.h"
#include "core/import/trace_format.h"

namespace fathom {
namespace {

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

void TraceProcessor::Interrupt() {
  if (sql_) sql_->Interrupt();
}

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
  const size_t chunk_size = std::max<size_t>(tuning_.chunk_bytes, 1);
  report_.file_bytes = reader->file_size();
  ctx_->trace_size_bytes = reader->file_size();

  Sorter sorter;
  // A source is the file itself or one trace inside it (a zip/tar member, a
  // systrace HTML trace-data block, inflated atrace output). Every source has
  // its own tokenizer; all feed the one sorter, so several traces merge into
  // one storage in timestamp order. Protobuf sources share one tokenizer: a
  // Trace is a concatenation of packets, so two files are one longer stream.
  struct Source {
    ChunkReader* reader;
    std::unique_ptr<ChunkReader> owned;
    std::string name;
    bool html_as_text = false;  // an HTML page without trace-data blocks
    // Set: this source is the next member of `archive` (named
    // "<name>/<member>"), read from it as a stream.
    std::shared_ptr<ArchiveStream> archive;
  };
  std::deque<Source> sources;  // grows while loading; references stay valid
  sources.push_back({reader, nullptr, name, false, nullptr});
  std::vector<std::unique_ptr<std::vector<uint8_t>>> container_bytes;  // sources point into these
  std::vector<std::unique_ptr<ChunkedTokenizer>> tokenizers;
  ProtoTokenizer* proto_tokenizer = nullptr;
  JsonTraceParser json_parser(ctx_.get());
  std::vector<std::string> member_formats;
  uint64_t units = 0;
  size_t retained = 0;
  LoadProgress prog;
  prog.file_size = reader->file_size();

  // Reads everything left in `src` after `first` (a container is split whole).
  auto slurp = [&](Source& src, const uint8_t* first,
                   size_t first_size) -> Result<std::vector<uint8_t>*> {
    auto buf = std::make_unique<std::vector<uint8_t>>(first, first + first_size);
    while (true) {
      size_t at = buf->size();
      buf->resize(at + chunk_size);
      auto n = src.reader->Read(buf->data() + at, chunk_size);
      if (!n.ok()) {
        buf->resize(at);
        report_.warnings.push_back(src.name + ": " + n.status().message() +
                                   "; loaded what came before");
        break;
      }
      buf->resize(at + *n);
      if (*n == 0) break;
    }
    container_bytes.push_back(std::move(buf));
    return container_bytes.back().get();
  };
  auto add_member = [&](const std::string& member, const uint8_t* data, size_t size) {
    sources.push_back({nullptr, MakeMemoryReader(data, size), member, false, nullptr});
    sources.back().reader = sources.back().owned.get();
  };

  for (size_t si = 0; si < sources.size(); ++si) {
    Source& src = sources[si];
    if (src.archive) {
      auto more = src.archive->NextMember();
      if (!more.ok())
        report_.warnings.push_back(src.name + ": " + more.status().message() +
                                   "; loaded the members before it");
      if (!more.ok() || !*more) continue;
      // A compressed member (trace.pb.gz inside a tar) is inflated on the fly too.
      auto unwrapped = UnwrapStream(src.archive->member());
      if (!unwrapped.ok()) {
        report_.warnings.push_back(src.name + "/" + src.archive->name() + ": " +
                                   unwrapped.status().message() + "; skipped");
        sources.push_back({nullptr, nullptr, src.name, false, src.archive});
        continue;
      }
      src.owned = std::move(*unwrapped);
      src.reader = src.owned.get();
      // The member after this one, read once this one is done.
      sources.push_back({nullptr, nullptr, src.name, false, src.archive});
      src.name += "/" + src.archive->name();
    }
    const std::string& sname = src.name;
    bool is_member = si > 0;
    ChunkedTokenizer* tokenizer = nullptr;
    JsonTokenizer* json_tokenizer = nullptr;
    SystraceTextTokenizer* text_tokenizer = nullptr;
    ArtAllocLogTokenizer* art_log_tokenizer = nullptr;
    CollapsedStacksTokenizer* collapsed_tokenizer = nullptr;
    PprofTokenizer* pprof_tokenizer = nullptr;
    TraceFormat format = TraceFormat::kUnknown;
    std::vector<uint8_t> leftover;
    uint64_t stream_offset = 0;  // stream offset of the next byte to read
    bool first = true;
    bool container = false;
    // Once the format is known (and is no container), the rest of the
    // source is read ahead on another thread; it owns src.reader until reset.
    std::unique_ptr<ReadAhead> ahead;
    uint64_t bytes_read = 0;  // reader->file_offset() after the last read
    while (true) {
      std::unique_ptr<TraceBlob> blob;
      Result<size_t> n = size_t{0};
      if (ahead) {
        auto next = ahead->Next();
        if (next.ok()) {
          blob = std::move(*next);
          bytes_read = ahead->file_offset();
          n = blob->size;
          if (blob->size && !blob->Prepend(leftover.data(), leftover.size())) {
            // A packet longer than the headroom straddles the chunks: join them.
            auto joined = TraceBlob::Allocate(leftover.size() + blob->size);
            memcpy(joined->data.get(), leftover.data(), leftover.size());
            memcpy(joined->data.get() + leftover.size(), blob->data.get(), blob->size);
            blob = std::move(joined);
          }
        } else {
          n = next.status();
        }
      } else {
        blob = TraceBlob::Allocate(leftover.size() + chunk_size);
        memcpy(blob->data.get(), leftover.data(), leftover.size());
        n = src.reader->Read(blob->data.get() + leftover.size(), chunk_size);
        bytes_read = reader->file_offset();
      }
      if (!n.ok()) {
        report_.warnings.push_back(sname + ": " + n.status().message() +
                                   "; loaded what came before");
        break;
      }
      if (*n == 0) break;
      blob->size = leftover.size() + *n;
      uint64_t blob_offset = stream_offset - leftover.size();
      stream_offset += *n;
      if (first) {
        first = false;
        TraceFormat fmt = src.html_as_text ? TraceFormat::kSystraceText
                                           : DetectTraceFormat(blob->data.get(), blob->size);
        format = fmt;
        std::string fmt_name = TraceFormatName(fmt);
        if (src.reader->wrapper()) fmt_name += std::string(" (") + src.reader->wrapper() + ")";
        if (!is_member) report_.format = fmt_name;
        auto compressed_atrace = fmt == TraceFormat::kSystraceText
                                     ? FindCompressedAtracePayload(blob->data.get(), blob->size)
                                     : std::nullopt;
        if (fmt == TraceFormat::kZip || fmt == TraceFormat::kTar) {
          // Archives stream: each member is a source read through the
          // archive (inflated on the fly), never extracted whole.
          container = true;
          auto kind =
              fmt == TraceFormat::kZip ? ArchiveStream::Kind::kZip : ArchiveStream::Kind::kTar;
          if (src.archive) {
            // An archive inside an archive: its members come after the outer
            // archive's next member, which moves the outer stream on, so
            // this one is read into memory first.
            auto all = slurp(src, blob->data.get(), blob->size);
            auto mem = MakeMemoryReader((*all)->data(), (*all)->size());
            auto archive = std::make_shared<ArchiveStream>(kind, mem.get(), nullptr, 0);
            sources.push_back({nullptr, std::move(mem), sname, false, std::move(archive)});
          } else {
            auto archive =
                std::make_shared<ArchiveStream>(kind, src.reader, blob->data.get(), blob->size);
            sources.push_back({nullptr, nullptr, sname, false, std::move(archive)});
          }
          break;
        }
        if (fmt == TraceFormat::kSystraceHtml || compressed_atrace) {
          // Containers: split whole, then load each trace inside as a source.
          container = true;
          auto all = slurp(src, blob->data.get(), blob->size);
          const std::vector<uint8_t>& bytes = **all;
          if (compressed_atrace) {
            auto inflated = std::make_unique<std::vector<uint8_t>>();
            Status st = InflateBuffer(bytes.data() + *compressed_atrace,
                                      bytes.size() - *compressed_atrace, inflated.get());
            if (!st.ok())
              report_.warnings.push_back(At(sname, *compressed_atrace) +
                                         "compressed atrace data: " + st.message() +
                                         "; loaded what could be inflated");
            if (!is_member) report_.format = "systrace text (zlib)";
            container_bytes.push_back(std::move(inflated));
            sources.push_back(
                {nullptr,
                 MakeMemoryReader(container_bytes.back()->data(), container_bytes.back()->size()),
                 sname, true, nullptr});
            sources.back().reader = sources.back().owned.get();
          } else if (fmt == TraceFormat::kSystraceHtml) {
            std::string err;
            std::string_view page(reinterpret_cast<const char*>(bytes.data()), bytes.size());
            auto blocks = FindHtmlTraceDataBlocks(page, &err);
            if (!err.empty()) report_.warnings.push_back(sname + ": " + err);
            if (blocks.empty()) {
              // Older pages keep the text in a JavaScript string.
              sources.push_back(
                  {nullptr, MakeMemoryReader(bytes.data(), bytes.size()), sname, true, nullptr});
              sources.back().reader = sources.back().owned.get();
            }
            for (size_t b = 0; b < blocks.size(); ++b) {
              add_member(sname + " [trace-data block " + std::to_string(b + 1) + "]",
                         reinterpret_cast<const uint8_t*>(blocks[b].data()), blocks[b].size());
              // A text block is loaded as text even if it does not start
              // with "# tracer" (blocks are never HTML themselves).
              TraceFormat bf = DetectTraceFormat(reinterpret_cast<const uint8_t*>(blocks[b].data()),
                                                 blocks[b].size());
              if (bf != TraceFormat::kJson && bf != TraceFormat::kProto)
                sources.back().html_as_text = true;
            }
          }
          break;
        }
        if (fmt == TraceFormat::kUnknown || fmt == TraceFormat::kEmpty) {
          std::string msg =
              At(sname, 0) +
              "unknown trace format: expected a Perfetto protobuf trace (first byte "
              "0x0A), gzip/zstd, JSON, systrace text/HTML, zip/tar, pprof or collapsed stacks";
          if (!is_member) return ErrorStatus(msg);
          report_.warnings.push_back(msg + "; member skipped");
          break;
        }
        if (is_member && sname != name) member_formats.push_back(fmt_name);
        if (fmt == TraceFormat::kProto) {
          if (!proto_tokenizer) {
            proto_tokenizer = new ProtoTokenizer(ctx_.get(), &sorter);
            tokenizers.emplace_back(proto_tokenizer);
          }
          tokenizer = proto_tokenizer;
        } else if (fmt == TraceFormat::kJson) {
          json_tokenizer = new JsonTokenizer(ctx_.get(), &sorter);
          tokenizers.emplace_back(tokenizer = json_tokenizer);
        } else if (fmt == TraceFormat::kSystraceText) {
          text_tokenizer = new SystraceTextTokenizer(&sorter);
          tokenizers.emplace_back(tokenizer = text_tokenizer);
        } else if (fmt == TraceFormat::kArtAllocLog) {
          art_log_tokenizer = new ArtAllocLogTokenizer(ctx_.get(), sname);
          tokenizers.emplace_back(tokenizer = art_log_tokenizer);
        } else if (fmt == TraceFormat::kCollapsedStacks) {
          collapsed_tokenizer = new CollapsedStacksTokenizer(ctx_.get(), sname);
          tokenizers.emplace_back(tokenizer = collapsed_tokenizer);
        } else if (fmt == TraceFormat::kPprof) {
          // Upstream's scope: the archive member's name, else "pprof_file".
          std::string scope = "pprof_file";
          if (is_member)
            scope = sname.compare(0, name.size() + 1, name + "/") == 0
                        ? sname.substr(name.size() + 1)
                        : sname;
          pprof_tokenizer = new PprofTokenizer(ctx_.get(), scope);
          tokenizers.emplace_back(tokenizer = pprof_tokenizer);
        } else {
          return ErrorStatus(sname + ": " + TraceFormatName(fmt) +
                             " traces are not supported by this build yet");
        }
      }
      // Only a source longer than one chunk is worth a thread.
      if (!ahead && tuning_.threads && *n == chunk_size)
        ahead = std::make_unique<ReadAhead>(src.reader, reader, chunk_size,
                                            tuning_.read_ahead_headroom);
      const uint8_t* base = blob->data.get();
      size_t size = blob->size;
      uint64_t before = tokenizer->units();
      auto rest = tokenizer->Feed(std::move(blob), blob_offset);  // keeps the blob alive
      units += tokenizer->units() - before;
      if (!rest.ok()) {
        report_.warnings.push_back(sname + ": " + rest.status().message() +
                                   "; the rest of the file was not loaded");
        ctx_->storage->stats.Increment(Stat::kProtoDecodeErrors);
        leftover.clear();
        break;
      }
      leftover.assign(base + size - *rest, base + size);
      // A packet that declares more bytes than any real packet has is corrupt:
      // stop instead of buffering the rest of the file.
      if (format == TraceFormat::kProto && leftover.size() > 1) {
        uint64_t len = 0;
        const uint8_t* q =
            proto::ReadVarint(leftover.data() + 1, leftover.data() + leftover.size(), &len);
        if (q && len > kMaxPacketSize) {
          uint64_t off = stream_offset - leftover.size();
          report_.warnings.push_back(At(sname, off) + "packet declares " + std::to_string(len) +
                                     " bytes, more than any valid packet; the rest of the file "
                                     "was not loaded");
          ctx_->storage->stats.Increment(Stat::kProtoDecodeErrors);
          leftover.clear();
          break;
        }
      }
      prog.bytes_read = bytes_read;
      prog.packets = units;
      prog.events = sorter.size();
      if (progress && !progress(prog)) return ErrorStatus(name + ": load cancelled");
    }
    ahead.reset();  // src.reader is this thread's again
    if (first && !is_member) return ErrorStatus(At(sname, 0) + "the file is empty");
    if (container || !tokenizer) continue;
    if (std::string w = src.reader->end_warning(); !w.empty())
      report_.warnings.push_back(sname + ": " + w);
    std::string_view last_line(reinterpret_cast<const char*>(leftover.data()), leftover.size());
    uint64_t before = tokenizer->units();
    if (text_tokenizer && !leftover.empty()) {
      // Text may end without a newline: the last line is whole.
      text_tokenizer->FinishLastLine(last_line);
      leftover.clear();
    }
    if (collapsed_tokenizer) {
      Status st = collapsed_tokenizer->FinishLastLine(last_line);
      if (!st.ok()) report_.warnings.push_back(sname + ": " + st.message());
      if (collapsed_tokenizer->capped_samples())
        report_.warnings.push_back(sname + ": " +
                                   std::to_string(collapsed_tokenizer->capped_samples()) +
                                   " samples above the limit were not loaded");
      leftover.clear();
    }
    if (pprof_tokenizer) {  // no timestamps to sort: rows are written here
      if (Status st = pprof_tokenizer->Finish(); !st.ok())
        report_.warnings.push_back(sname + ": " + st.message());
      leftover.clear();
    }
    if (art_log_tokenizer) {  // no timestamps to sort: rows are written here
      art_log_tokenizer->FinishLastLine(last_line);
      leftover.clear();
      art_log_tokenizer->Finish(&report_.warnings);
    }
    if (json_tokenizer) {
      if (Status st = json_tokenizer->Finish(); !st.ok())
        report_.warnings.push_back(sname + ": " + st.message());
      if (json_tokenizer->stack_frames())
        json_parser.SetStackFrames(json_tokenizer->stack_frames());
      for (const std::string& key : json_tokenizer->unsupported_keys())
        report_.warnings.push_back(sname + ": JSON key \"" + key +
                                   "\" is not imported by this build");
    }
    units += tokenizer->units() - before;
    if (!leftover.empty()) {
      uint64_t off = stream_offset - leftover.size();
      report_.warnings.push_back(At(sname, off) + "trace is truncated: the last " +
                                 std::to_string(leftover.size()) +
                                 " bytes do not form a whole packet and were dropped");
      ctx_->storage->stats.Increment(Stat::kTraceTruncated, static_cast<int64_t>(leftover.size()));
    }
  }
  if (!member_formats.empty() && sources.size() > 1) {
    report_.format += " [" + std::to_string(member_formats.size()) + " trace(s):";
    for (const std::string& f : member_formats) report_.format += " " + f + ";";
    report_.format.back() = ']';
  }
  if (units == 0)
    return ErrorStatus(At(name, 0) + "no trace packets or events could be read" +
                       (report_.warnings.empty() ? "" : " (" + report_.warnings.front() + ")"));
  for (const auto& t : tokenizers) retained += t->retained_bytes();

  // Sort and parse.
  report_.packets = units;
  report_.events = sorter.size();
  report_.peak_sort_bytes = sorter.memory_bytes() + retained;
  prog.phase = LoadProgress::kSorting;
  prog.events_total = sorter.size();
  prog.events = 0;
  ctx_->storage->ReserveForImport(
      sorter.count(SortKind::kFtraceEvent), sorter.count(SortKind::kCompactSwitch),
      sorter.count(SortKind::kCompactWaking), sorter.count(SortKind::kTracePacket));
  bool cancelled = false;
  uint64_t parsed = 0;
  TraceContext* ctx = ctx_.get();
  auto parse = [&](const SortEntry& e) {
    if (cancelled) return;
    switch (e.kind) {
      case SortKind::kFtraceEvent:
        if (e.aux == kGenericTextEventAux) {  // text events with no FtraceEvent field
          WriteGenericTextEvent(ctx, e.ts, e.cpu, e.data, e.size);
          break;
        }
        ctx->ftrace_parser->ParseFtraceEvent(e.ts, e.cpu, proto::Bytes{e.data, e.size},
                                             proto_tokenizer && e.aux != kTextEventAux
                                                 ? &proto_tokenizer->generation(e.aux)
                                                 : nullptr);
        break;
      case SortKind::kCompactSwitch:
        ctx->ftrace_parser->ParseCompactSwitch(e.ts, e.cpu, CompactSwitchOf(e));
        break;
      case SortKind::kCompactWaking:
        ctx->ftrace_parser->ParseCompactWaking(e.ts, e.cpu, CompactWakingOf(e));
        break;
      case SortKind::kTracePacket:
        ctx->packet_parser->ParsePacket(e.ts, proto::Bytes{e.data, e.size},
                                        proto_tokenizer->generation(e.aux));
        break;
      case SortKind::kJsonEvent:
        json_parser.ParseEvent(e.ts, proto::Bytes{e.data, e.size}, e.aux);
        break;
    }
    if ((++parsed & 0xfffff) == 0 && progress) {
      prog.events = parsed;
      if (!progress(prog)) cancelled = true;
    }
  };
  // A big trace is merged on one more thread, and its ftrace_event and
  // thread_state rows are written on another, while this one parses; for a small trace the threads
  // would cost more than they save.
  if (tuning_.threads && sorter.size() >= tuning_.threaded_merge_min_events) {
    ctx->ftrace_parser->StartTableWorker();
    DrainSortedOnWorker(sorter, parse);
    ctx->ftrace_parser->StopTableWorker();
  } else {
    sorter.DrainSorted(parse);
  }
  if (cancelled) return ErrorStatus(name + ": load cancelled");
  ctx_->OnImportFinished();
  prog.phase = LoadProgress::kDone;
  prog.events = parsed;
  if (progress) progress(prog);
  return Status::Ok();
}

}  // namespace fathom
