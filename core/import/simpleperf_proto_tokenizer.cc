#include "core/import/simpleperf_proto_tokenizer.h"

#include <string>

namespace fathom {

Result<size_t> SimpleperfProtoTokenizer::Feed(std::unique_ptr<TraceBlob> blob,
                                              uint64_t stream_offset) {
  if (bytes_.size() + blob->size > kMaxBytes)
    return ErrorStatus("byte offset " + std::to_string(stream_offset) +
                       ": simpleperf file larger than " + std::to_string(kMaxBytes >> 20) + " MiB");
  bytes_.insert(bytes_.end(), blob->data.get(), blob->data.get() + blob->size);
  return size_t{0};
}

Status SimpleperfProtoTokenizer::Finish() {
  auto r = ImportSimpleperfProto(ctx_, bytes_.data(), bytes_.size());
  std::vector<uint8_t>().swap(bytes_);
  if (!r.ok()) return r.status();
  result_ = *r;
  return Status::Ok();
}

}  // namespace fathom
