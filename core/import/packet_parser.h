// Dispatches each sorted TracePacket to the parser of its payload.
#pragma once

#include <cstdint>

#include "core/import/packages_list_parser.h"
#include "core/import/proto_decoder.h"
#include "core/import/trace_context.h"

namespace fathom {

struct SequenceGeneration;

class PacketParser {
 public:
  explicit PacketParser(TraceContext* ctx) : ctx_(ctx), packages_(ctx) {}
  void ParsePacket(int64_t ts, proto::Bytes packet, const SequenceGeneration& gen);

 private:
  // android.aflags: a data source error becomes an android_aflags_errors log row.
  void ParseAndroidAflags(int64_t ts, proto::Bytes payload);
  TraceContext* ctx_;
  PackagesListParser packages_;
};

}  // namespace fathom
