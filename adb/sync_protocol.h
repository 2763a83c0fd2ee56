// File transfer over a "sync:" stream (spec §10): STAT/STA2/LST2, LIST/LIS2, SEND, RECV.
// Messages are parsed from a reassembly buffer because the device may split or merge them
// across WRTE boundaries.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "adb/byte_stream.h"
#include "adb/cancel.h"
#include "adb/message.h"
#include "adb/sync_compression.h"
#include "base/status.h"

namespace fathom::adb {

inline constexpr uint32_t kSyncStat = FourCc("STAT");
inline constexpr uint32_t kSyncSta2 = FourCc("STA2");
inline constexpr uint32_t kSyncLst2 = FourCc("LST2");
inline constexpr uint32_t kSyncList = FourCc("LIST");
inline constexpr uint32_t kSyncLis2 = FourCc("LIS2");
inline constexpr uint32_t kSyncDent = FourCc("DENT");
inline constexpr uint32_t kSyncDnt2 = FourCc("DNT2");
inline constexpr uint32_t kSyncSend = FourCc("SEND");
inline constexpr uint32_t kSyncRecv = FourCc("RECV");
inline constexpr uint32_t kSyncSnd2 = FourCc("SND2");
inline constexpr uint32_t kSyncRcv2 = FourCc("RCV2");
inline constexpr uint32_t kSyncData = FourCc("DATA");
inline constexpr uint32_t kSyncDone = FourCc("DONE");
inline constexpr uint32_t kSyncOkay = FourCc("OKAY");
inline constexpr uint32_t kSyncFail = FourCc("FAIL");
inline constexpr uint32_t kSyncQuit = FourCc("QUIT");

inline constexpr size_t kSyncDataMax = 64 * 1024;
inline constexpr size_t kSyncPathMax = 1024;
// Bounds on what one LIST reply may hold: a device listing without end (or names of
// gigabytes) must not fill our memory. Far above any real directory.
inline constexpr size_t kSyncListMaxEntries = 1u << 20;
inline constexpr size_t kSyncListMaxNameBytes = 64u << 20;

struct SyncStat {
  uint32_t mode = 0;
  uint64_t size = 0;
  int64_t mtime = 0;
  // Only filled by the v2 requests:
  uint64_t dev = 0, ino = 0;
  uint32_t nlink = 0, uid = 0, gid = 0;
  int64_t atime = 0, ctime = 0;
};

struct SyncDirEntry {
  std::string name;
  SyncStat stat;
};

// How SEND/RECV travel: v1, or v2 (SND2/RCV2 with a setup message carrying mode and flags;
// needs sendrecv_v2) whose DATA payloads may form one compressed stream.
struct SyncTransferMode {
  bool v2 = false;
  SyncCompression compression = SyncCompression::kNone;  // only with v2
};

// id + u32 length + bytes: the shape of every request and of DATA/FAIL.
std::string EncodeSyncRequest(uint32_t id, std::string_view data);

class SyncClient {
 public:
  // stat_v2 / ls_v2: whether both sides advertised those features.
  SyncClient(ByteStream& stream, bool stat_v2, bool ls_v2, SyncTransferMode mode = {})
      : stream_(stream), stat_v2_(stat_v2), ls_v2_(ls_v2), mode_(mode) {}
  const SyncTransferMode& transfer_mode() const { return mode_; }

  // stat() (follows links) with stat_v2, else the v1 lstat-only STAT whose all-zero reply
  // means "failed, cause unknown".
  Result<SyncStat> Stat(const std::string& path, Deadline d, const CancelToken& c);
  // lstat() (does not follow links): LST2 with stat_v2, else STAT (which is an lstat).
  Result<SyncStat> Lstat(const std::string& path, Deadline d, const CancelToken& c);
  Result<std::vector<SyncDirEntry>> List(const std::string& path, Deadline d, const CancelToken& c);
  // SEND "path,mode" (or SND2 path + SND2 mode flags) + DATA chunks (≤ 64 KiB) + DONE mtime,
  // then waits for OKAY/FAIL.
  Status Push(std::string_view data, const std::string& remote_path, uint32_t mode, uint32_t mtime,
              Deadline d, const CancelToken& c);
  // The same, reading the file from `source` (fills up to `cap` bytes, returns how many;
  // 0 at the end) so a large file never sits in memory whole.
  Status PushFrom(const std::function<Result<size_t>(char* buf, size_t cap)>& source,
                  const std::string& remote_path, uint32_t mode, uint32_t mtime, Deadline d,
                  const CancelToken& c);
  // RECV (or RCV2 path + RCV2 flags): each DATA chunk, decompressed, goes to sink as it
  // arrives.
  Status Pull(const std::string& remote_path, const std::function<Status(std::string_view)>& sink,
              Deadline d, const CancelToken& c);
  Status Quit(Deadline d, const CancelToken& c);

 private:
  Result<SyncStat> StatRequest(uint32_t v2_id, const std::string& path, Deadline d,
                               const CancelToken& c);
  Status SendRequest(uint32_t id, std::string_view path, Deadline d, const CancelToken& c);
  Result<std::string> ReadExact(size_t n, Deadline d, const CancelToken& c);
  // The next n bytes, valid until the next read.
  Result<std::string_view> ReadView(size_t n, Deadline d, const CancelToken& c);
  // After a FAIL header claiming `length` bytes: its message (at most kSyncDataMax read),
  // escaped and cut for the user.
  std::string ReadFailMessage(uint32_t length, Deadline d, const CancelToken& c);
  Status SendCompressed(const std::function<Result<size_t>(char*, size_t)>& source, Deadline d,
                        const CancelToken& c);
  Status FinishSend(const std::string& remote_path, std::string batch, uint32_t mtime, Deadline d,
                    const CancelToken& c);

  ByteStream& stream_;
  bool stat_v2_, ls_v2_;
  SyncTransferMode mode_;
  std::string buffer_;  // the WRTE payload being parsed
  size_t pos_ = 0;      // bytes of buffer_ already consumed
  std::string spill_;   // a record that spans payloads (ReadView)
};

}  // namespace fathom::adb
