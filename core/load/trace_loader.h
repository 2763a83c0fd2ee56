// Loads one trace file into a TraceContext: the reading phase walks the
// file's sources (the file itself, archive members, the traces inside HTML
// pages and compressed atrace output) depth first with an explicit stack, so
// an archive inside an archive streams through its parent's member instead of
// being copied, and nesting depth costs no native stack. Every source owns the
// reader it is read through, and an archive is kept alive by every source read
// from it: lifetimes follow ownership, not the order of a queue. Then the
// sorted events are parsed (parse_sorted.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "core/import/archive_reader.h"
#include "core/import/chunk_reader.h"
#include "core/import/load_limits.h"
#include "core/import/sorter.h"
#include "core/import/trace_blob.h"
#include "core/import/trace_context.h"
#include "core/import/trace_format.h"
#include "core/load/tokenizer_set.h"
#include "core/trace_processor.h"

namespace fathom {

class ChunkStream;

class TraceLoader {
 public:
  TraceLoader(TraceContext* ctx, const LoadTuning& tuning, const LoadLimits& limits,
              LoadReport* report);
  ~TraceLoader();
  TraceLoader(const TraceLoader&) = delete;
  TraceLoader& operator=(const TraceLoader&) = delete;

  // Reads `file` (named `name` in messages), then sorts and parses.
  Status Load(ChunkReader* file, const std::string& name, const ProgressCallback& progress);

 private:
  // An archive being walked. Its stream reads `input` (a member of `parent`),
  // or the file itself when both are null; members are read through it, so
  // every source read from it holds it.
  struct OpenArchive {
    std::string name;
    int depth = 0;  // 1: the outermost archive
    std::shared_ptr<OpenArchive> parent;
    std::unique_ptr<ChunkReader> input;
    uint32_t file_row = 0;                  // its __intrinsic_trace_file row
    std::unique_ptr<ArchiveStream> stream;  // declared last: destroyed before `input`
  };

  // One trace to read: the file, an archive member, or a piece of a container.
  // Members are declared so that what reads is destroyed before what it reads.
  struct Source {
    std::string name;
    std::shared_ptr<const std::vector<uint8_t>> bytes;  // a container piece's memory
    std::shared_ptr<OpenArchive> archive;               // the archive it is a member of
    std::unique_ptr<ChunkReader> owned;                 // owns `reader` unless it is the file
    ChunkReader* reader = nullptr;
    int depth = 0;  // archives around it
    bool is_member = false;
    bool html_as_text = false;  // an HTML page without trace-data blocks, or inflated atrace
    bool piece = false;         // a piece of a container file (not a file of its own)
    std::string member_name;    // an archive member's name inside its archive
  };

  // A stack entry: a source to read, or (archive set) the next member of an archive.
  struct Work {
    Source source;
    std::shared_ptr<OpenArchive> next_member_of;
  };

  Status ReadAll();
  Status ReadSource(Source src);
  // Adds the __intrinsic_trace_file row(s) of a file, archive member or
  // wrapped stream; returns the row of its content.
  uint32_t RecordTraceFile(const Source& src, TraceFormat format);
  void TakeNextMember(const std::shared_ptr<OpenArchive>& archive);
  void OpenArchiveSource(Source src, TraceFormat format, std::unique_ptr<TraceBlob> head,
                         uint32_t file_row);
  void SplitContainer(Source src, ChunkStream& stream, std::unique_ptr<TraceBlob> first,
                      std::optional<size_t> compressed_atrace);
  std::shared_ptr<std::vector<uint8_t>> ReadWhole(const Source& src, ChunkStream& stream,
                                                  std::unique_ptr<TraceBlob> first);
  void PushPiece(const Source& parent, std::string name,
                 std::shared_ptr<const std::vector<uint8_t>> bytes, const uint8_t* data,
                 size_t size, bool as_text);
  Status Tokenize(Source& src, ChunkStream& stream, std::unique_ptr<TraceBlob> blob,
                  uint64_t offset, const SourceTokenizer& t);
  bool PacketTooLong(const Source& src, ChunkStream& stream);
  bool OverFileAllowance(const Source& src, const ChunkStream& stream);
  void FinishSource(const Source& src, const ChunkStream& stream, const SourceTokenizer& t);
  bool ReportProgress(uint64_t file_offset);
  std::string PprofScope(const Source& src) const;
  void Warn(std::string text) { report_->warnings.push_back(std::move(text)); }

  TraceContext* ctx_;
  LoadTuning tuning_;
  LoadLimits limits_;
  LoadReport* report_;
  Sorter sorter_;
  TokenizerSet tokenizers_;
  std::vector<Work> stack_;
  ChunkReader* file_ = nullptr;
  std::string name_;
  ProgressCallback progress_;
  LoadProgress prog_;
  uint64_t units_ = 0;
  uint64_t fed_bytes_ = 0;  // new bytes handed to tokenizers, over every source
  bool stopped_ = false;    // a whole-file limit ended the reading phase
  std::vector<std::string> member_formats_;
};

}  // namespace fathom
