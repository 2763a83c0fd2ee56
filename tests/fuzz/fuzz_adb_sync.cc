// libFuzzer target: the sync client (spec §10) reading what a device answers
// to STAT/STA2/LST2, LIST/LIS2, RECV/RCV2 (plain and compressed) and SEND,
// and the recursive directory walk built on LIST. The device's replies come
// from the input, cut into pieces of an input-chosen size the way WRTE
// payloads cut them.
//
// Input: [flags][piece][4 op bytes][device bytes...]
//   flags bit 0 stat_v2, bit 1 ls_v2, bit 2 sync v2 transfers,
//   bits 3-4 compression (none, brotli, lz4, zstd).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "adb/device_names.h"
#include "adb/remote_tree.h"
#include "adb/sync_protocol.h"
#include "fake_byte_stream.h"

namespace {

using namespace fathom::adb;
using fathom::Status;

void Check(bool ok) {
  if (!ok) abort();
}

constexpr SyncCompression kCodecs[] = {SyncCompression::kNone, SyncCompression::kBrotli,
                                       SyncCompression::kLz4, SyncCompression::kZstd};

void RunOp(uint8_t op, SyncClient& sync, size_t device_bytes, const SyncTransferMode& mode) {
  const Deadline d = Deadline::Never();
  const CancelToken c;
  switch (op % 6) {
    case 0:
    case 1: {
      auto st = op % 6 == 0 ? sync.Stat("/f", d, c) : sync.Lstat("/f", d, c);
      if (st.ok()) Check(st->mode != 0);  // mode 0 means "no such file"
      break;
    }
    case 2: {
      auto entries = sync.List("/d", d, c);
      if (!entries.ok()) break;
      size_t names = 0;
      for (const auto& e : *entries) names += e.name.size();
      Check(names <= device_bytes && entries->size() * 20 <= device_bytes);
      break;
    }
    case 3: {
      uint64_t pulled = 0;
      Status s = sync.Pull(
          "/f",
          [&](std::string_view piece) {
            pulled += piece.size();
            return Status::Ok();
          },
          d, c);
      (void)s;
      // Uncompressed data cannot exceed what the device sent.
      if (mode.compression == SyncCompression::kNone) Check(pulled <= device_bytes);
      break;
    }
    case 4:
      (void)sync.Push("hello", "/f", 0100644, 0, d, c);
      break;
    case 5: {
      RemoteTreeLimits limits;
      limits.max_depth = 6;
      limits.max_entries = 2000;
      RemoteTreeReport report;
      auto list = [&](const std::string& dir) { return sync.List(dir, d, c); };
      Status s = WalkRemoteTree(
          "/r", list,
          [&](const RemoteTreeEntry& e) {
            // Whatever the device names, only safe local path components come out.
            Check(!e.relative.empty() && e.relative.size() <= limits.max_depth + 1);
            for (const auto& part : e.relative) Check(UnsafeEntryNameReason(part).empty());
            Check(e.remote.size() <= kSyncPathMax);
            return Status::Ok();
          },
          limits, &report, c);
      (void)s;
      Check(report.entries <= limits.max_entries);
      Check(report.dropped.size() <= RemoteTreeReport::kMaxDroppedLines);
      break;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 6) return 0;
  const uint8_t flags = data[0];
  const size_t piece = data[1] == 0 ? 1 << 20 : data[1];
  std::string_view device(reinterpret_cast<const char*>(data + 6), size - 6);
  SyncTransferMode mode;
  mode.v2 = flags & 4;
  if (mode.v2) mode.compression = kCodecs[(flags >> 3) & 3];
  fathom::fuzz::FakeByteStream stream(device, piece);
  SyncClient sync(stream, flags & 1, flags & 2, mode);
  for (int i = 0; i < 4 && stream.remaining() > 0; ++i)
    RunOp(data[2 + i], sync, device.size(), mode);
  return 0;
}
