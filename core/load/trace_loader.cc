#include "core/load/trace_loader.h"

#include <optional>
#include <string_view>

#include "core/import/archive_reader.h"
#include "core/import/proto_decoder.h"
#include "core/import/proto_tokenizer.h"
#include "core/import/systrace_html.h"
#include "core/load/chunk_stream.h"
#include "core/load/expansion_guard.h"
#include "core/load/parse_sorted.h"
#include "core/load/stat_problems.h"
#include "core/load/trace_files.h"

namespace fathom {
namespace {

std::string At(const std::string& name, uint64_t offset) {
  return name + ": byte offset " + std::to_string(offset) + ": ";
}

}  // namespace

TraceLoader::TraceLoader(TraceContext* ctx, const LoadTuning& tuning, const LoadLimits& limits,
                         LoadReport* report)
    : ctx_(ctx), tuning_(tuning), limits_(limits), report_(report), tokenizers_(ctx, &sorter_) {
  // Parsers and tokenizers read the limits from the context.
  ctx_->limits = limits;
}

TraceLoader::~TraceLoader() = default;

Status TraceLoader::Load(ChunkReader* file, const std::string& name,
                         const ProgressCallback& progress) {
  // Stats counted from here on are also reported with where they happened.
  StatProblemReporter stat_problems(ctx_);
  file_ = file;
  name_ = name;
  progress_ = progress;
  report_->file_bytes = file->file_size();
  ctx_->trace_size_bytes = file->file_size();
  prog_.file_size = file->file_size();

  Work top;
  top.source.name = name;
  top.source.reader = file;
  stack_.push_back(std::move(top));
  if (Status st = ReadAll(); !st.ok()) return st;
  FinishTraceFiles(ctx_->storage.get());

  if (!member_formats_.empty()) {
    report_->format += " [" + std::to_string(member_formats_.size()) + " trace(s):";
    for (const std::string& f : member_formats_) report_->format += " " + f + ";";
    report_->format.back() = ']';
  }
  // As upstream, a clean file that holds no events (an empty file,
  // {"traceEvents":[]}) is an empty trace whose queries answer; the warning
  // says why nothing is there. A damaged one that yields nothing is an error.
  if (units_ == 0) {
    std::vector<std::string> problems = ctx_->problems.Lines();
    if (!problems.empty() || !report_->warnings.empty()) {
      for (std::string& line : problems) Warn(std::move(line));
      return ErrorStatus(At(name, 0) + "no trace packets or events could be read" +
                         (report_->warnings.empty() ? "" : " (" + report_->warnings.front() + ")"));
    }
    Warn(At(name, 0) + (file->file_size() == 0
                            ? "the file is empty; loaded an empty trace"
                            : "no trace packets or events; loaded an empty trace"));
  }
  report_->packets = units_;
  report_->events = sorter_.size();
  report_->peak_sort_bytes = sorter_.memory_bytes() + tokenizers_.retained_bytes();
  // Problems found while parsing are the file's (the sorted events of all its
  // sources are interleaved by then).
  ctx_->problems.set_source(name);
  Status st = ParseSorted(ctx_, &sorter_, &tokenizers_, tuning_, progress_, &prog_);
  for (std::string& line : ctx_->problems.Lines()) Warn(std::move(line));
  if (!st.ok()) return ErrorStatus(name + ": " + st.message());
  return Status::Ok();
}

Status TraceLoader::ReadAll() {
  while (!stack_.empty() && !stopped_) {
    Work w = std::move(stack_.back());
    stack_.pop_back();
    if (w.next_member_of) {
      TakeNextMember(w.next_member_of);
      continue;
    }
    if (Status st = ReadSource(std::move(w.source)); !st.ok()) return st;
  }
  return Status::Ok();
}

void TraceLoader::TakeNextMember(const std::shared_ptr<OpenArchive>& archive) {
  auto more = archive->stream->NextMember();
  if (!more.ok())
    Warn(archive->name + ": " + more.status().message() + "; loaded the members before it");
  if (!more.ok() || !*more) return;
  // The member after this one, read once this one (and all inside it) is done.
  Work after;
  after.next_member_of = archive;
  stack_.push_back(std::move(after));

  std::string member_name = archive->name + "/" + archive->stream->name();
  // A compressed member (trace.pb.gz inside a tar) is inflated on the fly too.
  auto unwrapped = UnwrapStream(archive->stream->member());
  if (!unwrapped.ok()) {
    Warn(member_name + ": " + unwrapped.status().message() + "; skipped");
    return;
  }
  Work w;
  Source& s = w.source;
  s.name = std::move(member_name);
  s.member_name = archive->stream->name();
  s.archive = archive;
  // Stored, deflated or gzip-wrapped alike, a member may only expand so far.
  s.owned = std::make_unique<ExpansionGuard>(std::move(*unwrapped), limits_);
  s.reader = s.owned.get();
  s.depth = archive->depth;
  s.is_member = true;
  stack_.push_back(std::move(w));
}

Status TraceLoader::ReadSource(Source src) {
  ChunkStream stream(src.reader, file_, tuning_);
  uint64_t offset = 0;
  auto first = stream.Next(&offset);
  if (!first.ok()) {
    std::string msg = At(src.name, 0) + first.status().message();
    if (!src.is_member) return ErrorStatus(msg);
    Warn(msg + "; member skipped");
    return Status::Ok();
  }
  std::unique_ptr<TraceBlob> blob = std::move(*first);
  if (!blob) {  // nothing at all: an empty trace (see Load), unless cut short
    if (std::string w = src.reader->end_warning(); !w.empty()) Warn(src.name + ": " + w);
    return Status::Ok();
  }
  TraceFormat fmt = src.html_as_text ? TraceFormat::kSystraceText
                                     : DetectTraceFormat(blob->data.get(), blob->size);
  std::string fmt_name = TraceFormatName(fmt);
  if (src.reader->wrapper()) fmt_name += std::string(" (") + src.reader->wrapper() + ")";
  if (!src.is_member) report_->format = fmt_name;
  std::optional<uint32_t> file_row;
  if (!src.piece && fmt != TraceFormat::kUnknown && fmt != TraceFormat::kEmpty)
    file_row = RecordTraceFile(src, fmt);
  auto compressed_atrace = fmt == TraceFormat::kSystraceText
                               ? FindCompressedAtracePayload(blob->data.get(), blob->size)
                               : std::nullopt;
  if (fmt == TraceFormat::kZip || fmt == TraceFormat::kTar) {
    OpenArchiveSource(std::move(src), fmt, std::move(blob), file_row.value_or(0));
    return Status::Ok();
  }
  if (fmt == TraceFormat::kSystraceHtml || compressed_atrace) {
    SplitContainer(std::move(src), stream, std::move(blob), compressed_atrace);
    return Status::Ok();
  }
  if (fmt == TraceFormat::kUnknown || fmt == TraceFormat::kEmpty) {
    std::string msg = At(src.name, 0) +
                      "unknown trace format: expected a Perfetto protobuf trace (first byte "
                      "0x0A), gzip/zstd, JSON, systrace text/HTML, zip/tar, pprof, simpleperf "
                      "proto or collapsed stacks";
    if (!src.is_member) return ErrorStatus(msg);
    Warn(msg + "; member skipped");
    return Status::Ok();
  }
  if (src.is_member && src.name != name_) member_formats_.push_back(fmt_name);
  ctx_->parsed_files.push_back(
      {std::string(TraceFileTypeName(fmt)), fmt == TraceFormat::kProto, FormatTraceTimeClock(fmt)});
  auto t = tokenizers_.For(fmt, src.name, PprofScope(src));
  if (!t.ok()) return t.status();
  Status st = Tokenize(src, stream, std::move(blob), offset, *t);
  // A member's (or wrapped content's) size is known once it is read.
  if (file_row && (src.is_member || src.reader->wrapper()))
    SetTraceFileSize(ctx_->storage.get(), *file_row, stream.offset());
  return st;
}

uint32_t TraceLoader::RecordTraceFile(const Source& src, TraceFormat format) {
  TraceStorage* s = ctx_->storage.get();
  std::optional<uint32_t> parent;
  if (src.archive) parent = src.archive->file_row;
  std::optional<std::string_view> name;
  if (src.is_member) name = src.member_name;
  bool root = !src.is_member;
  if (const char* wrapper = src.reader->wrapper()) {
    // As upstream: the wrapper is a container whose one child is unnamed.
    uint32_t outer = AddTraceFile(s, parent, name, wrapper, true);
    if (root) SetTraceFileSize(s, outer, file_->file_size());
    parent = outer;
    name = "";
    root = false;
  }
  bool archive = format == TraceFormat::kZip || format == TraceFormat::kTar;
  uint32_t row = AddTraceFile(s, parent, name, TraceFileTypeName(format), archive);
  if (root) SetTraceFileSize(s, row, file_->file_size());
  return row;
}

std::string TraceLoader::PprofScope(const Source& src) const {
  // Upstream's scope: the archive member's name, else "pprof_file".
  if (!src.is_member) return "pprof_file";
  return src.name.compare(0, name_.size() + 1, name_ + "/") == 0 ? src.name.substr(name_.size() + 1)
                                                                 : src.name;
}

void TraceLoader::OpenArchiveSource(Source src, TraceFormat format, std::unique_ptr<TraceBlob> head,
                                    uint32_t file_row) {
  int depth = src.depth + 1;
  if (depth > limits_.max_archive_depth) {
    Warn(src.name + ": an archive nested " + std::to_string(depth) + " deep, past the limit of " +
         std::to_string(limits_.max_archive_depth) +
         " (raise with --max-archive-depth): not opened");
    return;
  }
  // Archives stream: each member is a source read through the archive
  // (inflated on the fly), never extracted whole; an archive inside one reads
  // its parent's member, which stays current until this archive is done.
  auto archive = std::make_shared<OpenArchive>();
  archive->name = src.name;
  archive->depth = depth;
  archive->parent = src.archive;
  archive->file_row = file_row;
  archive->input = std::move(src.owned);  // null for the file, which the caller owns
  auto kind = format == TraceFormat::kZip ? ArchiveStream::Kind::kZip : ArchiveStream::Kind::kTar;
  archive->stream = std::make_unique<ArchiveStream>(kind, src.reader, head->data.get(), head->size);
  Work w;
  w.next_member_of = std::move(archive);
  stack_.push_back(std::move(w));
}

void TraceLoader::SplitContainer(Source src, ChunkStream& stream, std::unique_ptr<TraceBlob> first,
                                 std::optional<size_t> compressed_atrace) {
  auto bytes = ReadWhole(src, stream, std::move(first));
  if (compressed_atrace) {
    auto inflated = std::make_shared<std::vector<uint8_t>>();
    size_t at = *compressed_atrace;
    size_t max_out = static_cast<size_t>(std::min<uint64_t>(
        limits_.InflateAllowance(bytes->size() - at), limits_.max_container_bytes));
    Status st = InflateBuffer(bytes->data() + at, bytes->size() - at, inflated.get(), max_out);
    if (!st.ok())
      Warn(At(src.name, at) + "compressed atrace data: " + st.message() +
           "; loaded what could be inflated");
    if (!src.is_member) report_->format = "systrace text (zlib)";
    PushPiece(src, src.name, inflated, inflated->data(), inflated->size(), true);
    return;
  }
  std::string err;
  std::string_view page(reinterpret_cast<const char*>(bytes->data()), bytes->size());
  auto blocks = FindHtmlTraceDataBlocks(page, &err);
  if (!err.empty()) Warn(src.name + ": " + err);
  if (blocks.empty()) {  // older pages keep the text in a JavaScript string
    PushPiece(src, src.name, bytes, bytes->data(), bytes->size(), true);
    return;
  }
  // Pushed last to first: the stack hands them out in page order.
  for (size_t b = blocks.size(); b-- > 0;) {
    auto data = reinterpret_cast<const uint8_t*>(blocks[b].data());
    // A text block is loaded as text even if it does not start with
    // "# tracer" (blocks are never HTML themselves).
    TraceFormat bf = DetectTraceFormat(data, blocks[b].size());
    PushPiece(src, src.name + " [trace-data block " + std::to_string(b + 1) + "]", bytes, data,
              blocks[b].size(), bf != TraceFormat::kJson && bf != TraceFormat::kProto);
  }
}

std::shared_ptr<std::vector<uint8_t>> TraceLoader::ReadWhole(const Source& src, ChunkStream& stream,
                                                             std::unique_ptr<TraceBlob> first) {
  auto bytes =
      std::make_shared<std::vector<uint8_t>>(first->data.get(), first->data.get() + first->size);
  first.reset();
  while (true) {
    uint64_t offset = 0;
    auto next = stream.Next(&offset);
    if (!next.ok()) {
      Warn(At(src.name, stream.offset()) + next.status().message() + "; loaded what came before");
      break;
    }
    if (!*next) break;
    const TraceBlob& b = **next;
    if (bytes->size() + b.size > limits_.max_container_bytes) {
      Warn(At(src.name, bytes->size()) + "a container read whole is larger than " +
           std::to_string(limits_.max_container_bytes >> 20) +
           " MiB (raise with --max-container-mb); loaded what came before");
      break;
    }
    bytes->insert(bytes->end(), b.data.get(), b.data.get() + b.size);
  }
  return bytes;
}

void TraceLoader::PushPiece(const Source& parent, std::string name,
                            std::shared_ptr<const std::vector<uint8_t>> bytes, const uint8_t* data,
                            size_t size, bool as_text) {
  Work w;
  Source& s = w.source;
  s.name = std::move(name);
  s.bytes = std::move(bytes);
  // A piece may be gzip or zstd itself: it may only expand so far too.
  s.owned = GuardExpansion(MakeMemoryReader(data, size), limits_);
  s.reader = s.owned.get();
  s.depth = parent.depth;
  s.is_member = true;
  s.piece = true;
  s.html_as_text = as_text;
  stack_.push_back(std::move(w));
}

}  // namespace fathom
