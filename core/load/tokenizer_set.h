// The tokenizers of one load: one per leaf source, except that every
// Perfetto protobuf source shares one (a Trace is a concatenation of packets,
// so two files are one longer stream). Knows how each kind is made for a
// source and what it must be told when its source ends.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "core/import/chunked_tokenizer.h"
#include "core/import/json_trace_parser.h"
#include "core/import/sorter.h"
#include "core/import/trace_context.h"
#include "core/import/trace_format.h"

namespace fathom {

class ProtoTokenizer;
class JsonTokenizer;
class SystraceTextTokenizer;
class ArtAllocLogTokenizer;
class CollapsedStacksTokenizer;
class PprofTokenizer;
class SimpleperfProtoTokenizer;
class StraceTokenizer;
class HprofTokenizer;

// The tokenizer of one source, with its concrete kind for finishing.
struct SourceTokenizer {
  ChunkedTokenizer* tokenizer = nullptr;
  TraceFormat format = TraceFormat::kUnknown;
  std::string name;  // the source's
  JsonTokenizer* json = nullptr;
  SystraceTextTokenizer* text = nullptr;
  ArtAllocLogTokenizer* art_log = nullptr;
  CollapsedStacksTokenizer* collapsed = nullptr;
  PprofTokenizer* pprof = nullptr;
  SimpleperfProtoTokenizer* simpleperf = nullptr;
  StraceTokenizer* strace = nullptr;
  HprofTokenizer* hprof = nullptr;
};

class TokenizerSet {
 public:
  // Tokenizers read the load's limits from ctx->limits.
  TokenizerSet(TraceContext* ctx, Sorter* sorter);
  ~TokenizerSet();

  // The tokenizer for a source of `format`. `pprof_scope` names a pprof
  // profile (upstream: the archive member's name, else "pprof_file").
  Result<SourceTokenizer> For(TraceFormat format, const std::string& source_name,
                              const std::string& pprof_scope);

  // The source ended; `last` holds its bytes that formed no whole unit.
  // Returns how many of them are still unexplained (a truncated tail), and
  // appends problems to `warnings`.
  // `end_offset`: the stream offset just past the source's last byte.
  size_t Finish(const SourceTokenizer& t, const std::vector<uint8_t>& last, uint64_t end_offset,
                std::vector<std::string>* warnings);

  ProtoTokenizer* proto() const { return proto_; }
  JsonTraceParser* json_parser() { return &json_parser_; }
  size_t retained_bytes() const;

 private:
  TraceContext* ctx_;
  Sorter* sorter_;
  std::vector<std::unique_ptr<ChunkedTokenizer>> all_;
  ProtoTokenizer* proto_ = nullptr;
  JsonTraceParser json_parser_;
};

}  // namespace fathom
