// ADB transport messages: the 24-byte header, command constants, checksum rules.
// See /work/shared/spec/adb-protocol.md §1–§3.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace fathom::adb {

// Commands are four ASCII bytes read as a little-endian u32.
inline constexpr uint32_t kCmdSync = 0x434E5953;
inline constexpr uint32_t kCmdCnxn = 0x4E584E43;
inline constexpr uint32_t kCmdAuth = 0x48545541;
inline constexpr uint32_t kCmdOpen = 0x4E45504F;
inline constexpr uint32_t kCmdOkay = 0x59414B4F;
inline constexpr uint32_t kCmdWrte = 0x45545257;
inline constexpr uint32_t kCmdClse = 0x45534C43;
inline constexpr uint32_t kCmdStls = 0x534C5453;

inline constexpr uint32_t kAuthToken = 1;
inline constexpr uint32_t kAuthSignature = 2;
inline constexpr uint32_t kAuthRsaPublicKey = 3;
inline constexpr size_t kAuthTokenSize = 20;

inline constexpr uint32_t kVersionMin = 0x01000000;
// From this version on nobody computes or checks the payload checksum.
inline constexpr uint32_t kVersionSkipChecksum = 0x01000001;
inline constexpr uint32_t kVersion = kVersionSkipChecksum;

inline constexpr uint32_t kMaxPayloadV1 = 4 * 1024;  // also the cap before CNXN is exchanged
inline constexpr uint32_t kMaxPayload = 1024 * 1024;
// CNXN and AUTH travel before the max payload is known; the spec keeps them within 4096
// bytes. We accept up to 64 KiB (lenient with odd devices) and reject anything larger: a
// 1 MiB "banner" is not a device identity.
inline constexpr uint32_t kMaxHandshakePayload = 64 * 1024;
// The smallest max payload any adbd announced (MAX_PAYLOAD_V1); below it a device is broken
// or hostile (1 byte per WRTE).
inline constexpr uint32_t kMinMaxPayload = kMaxPayloadV1;
// AUTH tokens a device may send beyond one per key we have: a device that keeps sending them
// (rejecting every signature, or flooding) is an AUTH loop, not a user deciding.
inline constexpr size_t kMaxExtraAuthTokens = 8;
// Messages naming stream ids we never opened (WRTE/OKAY/CLSE floods) before the connection
// is dropped as hostile.
inline constexpr uint64_t kMaxStrayMessages = 256;

inline constexpr size_t kHeaderSize = 24;

struct Message {
  uint32_t command = 0;
  uint32_t arg0 = 0;
  uint32_t arg1 = 0;
  std::string payload;  // bytes, not text

  static Message Make(uint32_t command, uint32_t arg0, uint32_t arg1, std::string payload = {}) {
    return Message{command, arg0, arg1, std::move(payload)};
  }
};

// Header fields as on the wire, before the payload has been read.
struct MessageHeader {
  uint32_t command = 0;
  uint32_t arg0 = 0;
  uint32_t arg1 = 0;
  uint32_t data_length = 0;
  uint32_t data_check = 0;
  uint32_t magic = 0;
};

// Wrapping 32-bit sum of the payload bytes (the protocol's "checksum").
uint32_t PayloadChecksum(std::string_view payload);

// Whether a sender must fill in data_check: before the handshake the peer's version is
// unknown, so callers pass kVersionMin for CNXN/AUTH sent then; afterwards the negotiated one.
inline bool NeedsChecksum(uint32_t version) { return version < kVersionSkipChecksum; }

// Encodes header + payload. data_check is filled when NeedsChecksum(version).
std::string EncodeMessage(const Message& message, uint32_t version);
std::string EncodeHeader(const Message& message, uint32_t version);
// The same for a payload held elsewhere.
std::string EncodeHeader(uint32_t command, uint32_t arg0, uint32_t arg1, std::string_view payload,
                         uint32_t version);

// Decodes and validates a 24-byte header: magic must match and data_length must not exceed
// max_payload. The checksum is deliberately not verified (modern adb never does; §1).
Result<MessageHeader> DecodeHeader(std::string_view bytes, uint32_t max_payload);

// "CNXN", "WRTE", ... or a hex number, for logs and error messages.
std::string CommandName(uint32_t command);

// Little-endian helpers shared by the framing code (sync, shell v2, server replies).
inline void PutU32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
inline void PutU64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
inline uint32_t GetU32(std::string_view in, size_t at) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= uint32_t(uint8_t(in[at + i])) << (8 * i);
  return v;
}
inline uint64_t GetU64(std::string_view in, size_t at) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t(uint8_t(in[at + i])) << (8 * i);
  return v;
}
// A 4-character id such as "STAT" as the u32 it is on the wire.
constexpr uint32_t FourCc(const char (&s)[5]) {
  return uint32_t(uint8_t(s[0])) | uint32_t(uint8_t(s[1])) << 8 | uint32_t(uint8_t(s[2])) << 16 |
         uint32_t(uint8_t(s[3])) << 24;
}

}  // namespace fathom::adb
