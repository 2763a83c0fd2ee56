// TraceLoader: feeding one source's chunks to its tokenizer, the limits
// checked between chunks, and what is said when the source ends.
#include "core/import/proto_decoder.h"
#include "core/import/proto_tokenizer.h"
#include "core/load/chunk_stream.h"
#include "core/load/trace_loader.h"

namespace fathom {
namespace {

std::string At(const std::string& name, uint64_t offset) {
  return name + ": byte offset " + std::to_string(offset) + ": ";
}

}  // namespace

Status TraceLoader::Tokenize(Source& src, ChunkStream& stream, std::unique_ptr<TraceBlob> blob,
                             uint64_t offset, const SourceTokenizer& t) {
  ctx_->problems.set_source(src.name);
  size_t previous_tail = 0;
  while (blob) {
    stream.ReadRestAhead();
    const uint8_t* base = blob->data.get();
    size_t size = blob->size;
    fed_bytes_ += size - previous_tail;
    uint64_t before = t.tokenizer->units();
    ctx_->origins.Add(base, size, src.name, offset);
    auto rest = t.tokenizer->Feed(std::move(blob), offset);  // keeps the blob alive
    ctx_->cursor.packet_offset.reset();
    units_ += t.tokenizer->units() - before;
    if (!rest.ok()) {
      Warn(src.name + ": " + rest.status().message() + "; the rest of the file was not loaded");
      ctx_->storage->stats.Increment(Stat::kProtoDecodeErrors);
      stream.DropTail();
      break;
    }
    stream.KeepTail(base + size, *rest);
    previous_tail = *rest;
    if (t.format == TraceFormat::kProto && PacketTooLong(src, stream)) break;
    if (OverFileAllowance(src, stream)) break;
    if (!ReportProgress(stream.file_offset())) return ErrorStatus(name_ + ": load cancelled");
    auto next = stream.Next(&offset);
    if (!next.ok()) {
      Warn(At(src.name, stream.offset()) + next.status().message() + "; loaded what came before");
      break;
    }
    blob = std::move(*next);
  }
  FinishSource(src, stream, t);
  return Status::Ok();
}

bool TraceLoader::PacketTooLong(const Source& src, ChunkStream& stream) {
  // A packet that declares more bytes than any real packet has is corrupt:
  // stop instead of buffering the rest of the file.
  const std::vector<uint8_t>& tail = stream.tail();
  if (tail.size() <= 1) return false;
  uint64_t len = 0;
  const uint8_t* q = proto::ReadVarint(tail.data() + 1, tail.data() + tail.size(), &len);
  if (!q || len <= limits_.max_packet_bytes) return false;
  Warn(At(src.name, stream.offset() - tail.size()) + "packet declares " + std::to_string(len) +
       " bytes, more than the limit of " + std::to_string(limits_.max_packet_bytes >> 20) +
       " MiB (raise with --max-packet-mb); the rest of the file was not loaded");
  ctx_->storage->stats.Increment(Stat::kProtoDecodeErrors);
  stream.DropTail();
  return true;
}

bool TraceLoader::OverFileAllowance(const Source& src, const ChunkStream& stream) {
  // Bytes tokenized plus compressed_packets inflated, against the file's size:
  // a bomb spread over many members or packets stops here.
  uint64_t expanded =
      fed_bytes_ + (tokenizers_.proto() ? tokenizers_.proto()->inflated_bytes() : 0);
  uint64_t allowed = limits_.InflateAllowance(file_->file_size());
  if (expanded <= allowed) return false;
  Warn(At(src.name, stream.offset()) + "the file expands past the limit: " +
       std::to_string(expanded) + " bytes from a " + std::to_string(file_->file_size()) +
       "-byte file (more than " + std::to_string(limits_.max_inflate_ratio) +
       "x, beyond the first " + std::to_string(limits_.inflate_floor_bytes >> 20) +
       " MiB; raise with --max-inflate-ratio); the rest was not loaded");
  stopped_ = true;
  return true;
}

void TraceLoader::FinishSource(const Source& src, const ChunkStream& stream,
                               const SourceTokenizer& t) {
  if (std::string w = src.reader->end_warning(); !w.empty()) Warn(src.name + ": " + w);
  uint64_t before = t.tokenizer->units();
  size_t dropped = tokenizers_.Finish(t, stream.tail(), stream.offset(), &report_->warnings);
  units_ += t.tokenizer->units() - before;
  if (dropped == 0) return;
  Warn(At(src.name, stream.offset() - dropped) + "trace is truncated: the last " +
       std::to_string(dropped) + " bytes do not form a whole packet and were dropped");
  ctx_->storage->stats.Increment(Stat::kTraceTruncated, static_cast<int64_t>(dropped));
}

bool TraceLoader::ReportProgress(uint64_t file_offset) {
  prog_.bytes_read = file_offset;
  prog_.packets = units_;
  prog_.events = sorter_.size();
  return !progress_ || progress_(prog_);
}

}  // namespace fathom
