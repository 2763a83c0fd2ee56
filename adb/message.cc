#include "adb/message.h"

#include <cstdio>

namespace fathom::adb {

uint32_t PayloadChecksum(std::string_view payload) {
  uint32_t sum = 0;
  for (char c : payload) sum += static_cast<uint8_t>(c);
  return sum;
}

std::string EncodeHeader(uint32_t command, uint32_t arg0, uint32_t arg1, std::string_view payload,
                         uint32_t version) {
  std::string out;
  out.reserve(kHeaderSize);
  PutU32(out, command);
  PutU32(out, arg0);
  PutU32(out, arg1);
  PutU32(out, static_cast<uint32_t>(payload.size()));
  PutU32(out, NeedsChecksum(version) ? PayloadChecksum(payload) : 0);
  PutU32(out, command ^ 0xFFFFFFFFu);
  return out;
}

std::string EncodeHeader(const Message& m, uint32_t version) {
  return EncodeHeader(m.command, m.arg0, m.arg1, m.payload, version);
}

std::string EncodeMessage(const Message& m, uint32_t version) {
  std::string out = EncodeHeader(m, version);
  out += m.payload;
  return out;
}

Result<MessageHeader> DecodeHeader(std::string_view b, uint32_t max_payload) {
  if (b.size() < kHeaderSize) return ErrorStatus("adb: short message header");
  MessageHeader h{GetU32(b, 0),  GetU32(b, 4),  GetU32(b, 8),
                  GetU32(b, 12), GetU32(b, 16), GetU32(b, 20)};
  if (h.magic != (h.command ^ 0xFFFFFFFFu)) {
    return ErrorStatus("adb: bad message magic for " + CommandName(h.command));
  }
  if (h.data_length > max_payload) {
    return ErrorStatus("adb: " + CommandName(h.command) + " payload of " +
                       std::to_string(h.data_length) + " bytes exceeds the limit of " +
                       std::to_string(max_payload));
  }
  return h;
}

std::string CommandName(uint32_t command) {
  switch (command) {
    case kCmdSync:
      return "SYNC";
    case kCmdCnxn:
      return "CNXN";
    case kCmdAuth:
      return "AUTH";
    case kCmdOpen:
      return "OPEN";
    case kCmdOkay:
      return "OKAY";
    case kCmdWrte:
      return "WRTE";
    case kCmdClse:
      return "CLSE";
    case kCmdStls:
      return "STLS";
  }
  char buf[16];
  std::snprintf(buf, sizeof(buf), "0x%08x", command);
  return buf;
}

}  // namespace fathom::adb
