// libFuzzer target: the adb wire formats a device controls that are parsed
// without a connection: message headers (magic, length limits) and their
// payloads as the transports read them, CNXN banners, shell v2 frames, the
// adb server's device list, and the name/escape checks applied to device
// text. Each check below is an invariant, so a violation aborts.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "adb/banner.h"
#include "adb/device_names.h"
#include "adb/message.h"
#include "adb/server_client.h"
#include "adb/shell_protocol.h"

namespace {

using namespace fathom::adb;
using fathom::Status;

void Check(bool ok) {
  if (!ok) abort();
}

// Device text made safe for a terminal holds printable ASCII only.
void CheckEscaped(std::string_view text) {
  for (char c : EscapeForTerminal(text)) Check(c >= 0x20 && c < 0x7F);
}

// Reads messages back to back as a transport would: header, then its payload.
void DecodeMessages(std::string_view in) {
  // Before CNXN only small payloads are allowed; afterwards the negotiated maximum.
  uint32_t max_payload = kMaxHandshakePayload;
  while (in.size() >= kHeaderSize) {
    auto h = DecodeHeader(in.substr(0, kHeaderSize), max_payload);
    if (!h.ok()) return;
    Check(h->magic == (h->command ^ 0xFFFFFFFFu));
    Check(h->data_length <= max_payload);
    Check(!CommandName(h->command).empty());
    in.remove_prefix(kHeaderSize);
    if (in.size() < h->data_length) return;
    std::string_view payload = in.substr(0, h->data_length);
    in.remove_prefix(h->data_length);

    // What we would send back with the same fields decodes to them again.
    Message m = Message::Make(h->command, h->arg0, h->arg1, std::string(payload));
    for (uint32_t version : {kVersionMin, kVersion}) {
      std::string wire = EncodeMessage(m, version);
      Check(wire.size() == kHeaderSize + payload.size());
      auto again = DecodeHeader(wire, kMaxPayload);
      Check(again.ok() && again->command == h->command && again->arg0 == h->arg0 &&
            again->arg1 == h->arg1 && again->data_length == h->data_length);
      Check(again->data_check == (NeedsChecksum(version) ? PayloadChecksum(payload) : 0));
    }
    if (h->command == kCmdCnxn) {
      Banner b = ParseBanner(payload);
      (void)b.Has("shell_v2");
      (void)b.product();
      max_payload = std::min(kMaxPayload, std::max(h->arg1, kMinMaxPayload));
    }
    CheckEscaped(payload);
    std::string why = UnsafeEntryNameReason(payload);
    // Accepted names never hold a separator, a NUL or a parent reference.
    if (why.empty()) {
      Check(!payload.empty() && payload.size() <= kMaxEntryName);
      Check(payload != "." && payload != "..");
      Check(payload.find_first_of(std::string_view("/\\\0", 3)) == std::string_view::npos);
    }
  }
}

// Shell v2 frames, fed in three pieces: data handed out never exceeds what
// came in, and nothing follows the exit frame.
void DecodeShell(std::string_view in) {
  ShellFrameReader reader;
  size_t out = 0;
  size_t cut1 = in.size() / 3, cut2 = 2 * in.size() / 3;
  for (std::string_view piece :
       {in.substr(0, cut1), in.substr(cut1, cut2 - cut1), in.substr(cut2)}) {
    Status s = reader.Feed(piece, [&](ShellId id, std::string_view data) {
      Check(id == ShellId::kStdout || id == ShellId::kStderr);
      Check(!reader.exit_code().has_value());
      out += data.size();
    });
    if (!s.ok()) break;
  }
  Check(out <= in.size());

  ShellDecoder decoder;
  decoder.Feed(in);
  size_t packets = 0, bytes = 0;
  while (auto p = decoder.Next()) {
    bytes += 5 + p->data.size();
    Check(++packets <= in.size() / 5);
  }
  Check(bytes <= in.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  DecodeMessages(in);
  DecodeShell(in);
  for (const DeviceEntry& d : ParseDeviceList(in)) {
    (void)d.Attr("model");
    CheckEscaped(d.serial);
  }
  return 0;
}
