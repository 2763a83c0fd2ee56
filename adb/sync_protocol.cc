#include "adb/sync_protocol.h"

#include <algorithm>
#include <cstring>

#include "adb/device_names.h"

namespace fathom::adb {
namespace {

// Shared layout of STA2/LST2 replies and DNT2 entries after the id: error, dev, ino, mode,
// nlink, uid, gid, size, atime, mtime, ctime (68 bytes).
SyncStat ParseStatV2(std::string_view b, size_t at, uint32_t* error) {
  SyncStat s;
  *error = GetU32(b, at);
  s.dev = GetU64(b, at + 4);
  s.ino = GetU64(b, at + 12);
  s.mode = GetU32(b, at + 20);
  s.nlink = GetU32(b, at + 24);
  s.uid = GetU32(b, at + 28);
  s.gid = GetU32(b, at + 32);
  s.size = GetU64(b, at + 36);
  s.atime = static_cast<int64_t>(GetU64(b, at + 44));
  s.mtime = static_cast<int64_t>(GetU64(b, at + 52));
  s.ctime = static_cast<int64_t>(GetU64(b, at + 60));
  return s;
}
constexpr size_t kStatV2Size = 68;

}  // namespace

std::string EncodeSyncRequest(uint32_t id, std::string_view data) {
  std::string out;
  PutU32(out, id);
  PutU32(out, static_cast<uint32_t>(data.size()));
  out.append(data);
  return out;
}

Status SyncClient::SendRequest(uint32_t id, std::string_view path, Deadline d,
                               const CancelToken& c) {
  if (path.size() > kSyncPathMax) return ErrorStatus("adb sync: path too long");
  return stream_.Write(EncodeSyncRequest(id, path), d, c);
}

Result<std::string_view> SyncClient::ReadView(size_t n, Deadline d, const CancelToken& c) {
  // Consumed bytes are skipped with pos_ (erasing the front per 64 KiB DATA of a 1 MiB WRTE
  // would move ~8 MiB per MiB pulled). buffer_ is refilled only when empty, so it takes the
  // next WRTE payload without a copy (see AdbStream::Read); a record that spans payloads is
  // assembled in spill_, copying that record only.
  if (pos_ == buffer_.size()) {
    buffer_.clear();
    pos_ = 0;
    if (n > 0) {
      auto got = stream_.Read(&buffer_, d, c);
      if (!got.ok()) return got.status();
      if (*got == 0) return ErrorStatus("adb sync: device closed the stream");
    }
  }
  if (buffer_.size() - pos_ >= n) {
    std::string_view out(buffer_.data() + pos_, n);
    pos_ += n;
    return out;
  }
  spill_.assign(buffer_, pos_);
  buffer_.clear();
  pos_ = 0;
  while (spill_.size() < n) {
    auto got = stream_.Read(&buffer_, d, c);
    if (!got.ok()) return got.status();
    if (*got == 0) return ErrorStatus("adb sync: device closed the stream");
    const size_t take = std::min(n - spill_.size(), buffer_.size());
    spill_.append(buffer_, 0, take);
    pos_ = take;
    if (pos_ == buffer_.size()) {
      buffer_.clear();
      pos_ = 0;
    }
  }
  return std::string_view(spill_);
}

Result<std::string> SyncClient::ReadExact(size_t n, Deadline d, const CancelToken& c) {
  auto v = ReadView(n, d, c);
  if (!v.ok()) return v.status();
  return std::string(*v);
}

std::string SyncClient::ReadFailMessage(uint32_t length, Deadline d, const CancelToken& c) {
  auto msg = ReadView(std::min<size_t>(length, kSyncDataMax), d, c);
  if (!msg.ok()) return "(FAIL without its message: " + msg.status().message() + ")";
  std::string text = EscapeForTerminal(*msg, 300);
  if (length > kSyncDataMax) text += " (a FAIL claiming " + std::to_string(length) + " bytes)";
  return text;
}

Result<SyncStat> SyncClient::Stat(const std::string& path, Deadline d, const CancelToken& c) {
  return StatRequest(kSyncSta2, path, d, c);
}

Result<SyncStat> SyncClient::Lstat(const std::string& path, Deadline d, const CancelToken& c) {
  return StatRequest(kSyncLst2, path, d, c);
}

Result<SyncStat> SyncClient::StatRequest(uint32_t v2_id, const std::string& path, Deadline d,
                                         const CancelToken& c) {
  if (Status s = SendRequest(stat_v2_ ? v2_id : kSyncStat, path, d, c); !s.ok()) return s;
  if (stat_v2_) {
    auto r = ReadExact(4 + kStatV2Size, d, c);
    if (!r.ok()) return r.status();
    if (GetU32(*r, 0) != v2_id) return ErrorStatus("adb sync: bad stat reply");
    uint32_t error = 0;
    SyncStat st = ParseStatV2(*r, 4, &error);
    if (error != 0) {
      return ErrorStatus("adb sync: stat " + path + ": errno " + std::to_string(error) +
                         (error == 2 ? " (No such file or directory)" : ""));
    }
    // Mode 0 is no file at all (what a failed stat leaves), whatever the error field says.
    if (st.mode == 0) return ErrorStatus("adb sync: stat " + path + ": the device gave mode 0");
    return st;
  }
  auto r = ReadExact(16, d, c);
  if (!r.ok()) return r.status();
  if (GetU32(*r, 0) != kSyncStat) return ErrorStatus("adb sync: bad STAT reply");
  SyncStat st;
  st.mode = GetU32(*r, 4);
  st.size = GetU32(*r, 8);
  st.mtime = GetU32(*r, 12);
  if (st.mode == 0) return ErrorStatus("adb sync: stat " + path + " failed (no such file?)");
  return st;
}

Result<std::vector<SyncDirEntry>> SyncClient::List(const std::string& path, Deadline d,
                                                   const CancelToken& c) {
  if (Status s = SendRequest(ls_v2_ ? kSyncLis2 : kSyncList, path, d, c); !s.ok()) return s;
  std::vector<SyncDirEntry> entries;
  // v1 DENT: id mode size mtime namelen (20 bytes); v2 DNT2: id + stat(68) + namelen (76).
  const size_t record = ls_v2_ ? 4 + kStatV2Size + 4 : 20;
  size_t name_bytes = 0;
  while (true) {
    auto r = ReadExact(record, d, c);
    if (!r.ok()) return r.status();
    uint32_t id = GetU32(*r, 0);
    if (id == kSyncDone) return entries;  // DONE has the same size as an entry
    if (id != (ls_v2_ ? kSyncDnt2 : kSyncDent)) return ErrorStatus("adb sync: bad LIST reply");
    SyncDirEntry e;
    if (ls_v2_) {
      uint32_t error = 0;
      e.stat = ParseStatV2(*r, 4, &error);
    } else {
      e.stat.mode = GetU32(*r, 4);
      e.stat.size = GetU32(*r, 8);
      e.stat.mtime = GetU32(*r, 12);
    }
    const uint32_t name_length = GetU32(*r, record - 4);
    if (name_length > kSyncPathMax) {
      return ErrorStatus("adb sync: the listing of " + path + " has an entry name of " +
                         std::to_string(name_length) + " bytes (a protocol error)");
    }
    name_bytes += name_length;
    if (entries.size() >= kSyncListMaxEntries || name_bytes > kSyncListMaxNameBytes) {
      return ErrorStatus("adb sync: the listing of " + path + " goes past " +
                         std::to_string(kSyncListMaxEntries) + " entries or " +
                         std::to_string(kSyncListMaxNameBytes >> 20) + " MiB of names");
    }
    auto name = ReadExact(name_length, d, c);
    if (!name.ok()) return name.status();
    e.name = std::move(*name);
    entries.push_back(std::move(e));
  }
}

Status SyncClient::Push(std::string_view data, const std::string& remote_path, uint32_t mode,
                        uint32_t mtime, Deadline d, const CancelToken& c) {
  size_t at = 0;
  return PushFrom(
      [&](char* buf, size_t cap) -> Result<size_t> {
        const size_t n = std::min(cap, data.size() - at);
        std::memcpy(buf, data.data() + at, n);
        at += n;
        return n;
      },
      remote_path, mode, mtime, d, c);
}

Status SyncClient::PushFrom(const std::function<Result<size_t>(char*, size_t)>& source,
                            const std::string& remote_path, uint32_t mode, uint32_t mtime,
                            Deadline d, const CancelToken& c) {
  if (mode_.v2) {
    // SND2 path, then the setup message with the same id: mode and flags travel in binary.
    if (remote_path.size() > kSyncPathMax) return ErrorStatus("adb sync: path too long");
    std::string request = EncodeSyncRequest(kSyncSnd2, remote_path);
    PutU32(request, kSyncSnd2);
    PutU32(request, mode);
    PutU32(request, static_cast<uint32_t>(mode_.compression));
    if (Status s = stream_.Write(request, d, c); !s.ok()) return s;
    if (mode_.compression != SyncCompression::kNone) {
      if (Status s = SendCompressed(source, d, c); !s.ok()) return s;
      return FinishSend(remote_path, {}, mtime, d, c);
    }
  } else {
    // Mode is decimal after the last comma; the device splits there.
    std::string spec = remote_path + "," + std::to_string(mode);
    if (Status s = SendRequest(kSyncSend, spec, d, c); !s.ok()) return s;
  }
  // Batch several DATA messages per Write: fewer WRTE round trips (one unacked WRTE at a
  // time). Each DATA is 8 header bytes + up to 64 KiB read straight into the batch, so
  // memory stays at one batch whatever the file size. A batch is exactly kMaxPayload
  // bytes (the last DATA is shortened to fit): a power of two, so it splits into whole WRTEs
  // of any negotiated max payload, where 16 full DATAs (1 MiB + 128 bytes) cost a second,
  // 128-byte WRTE and round trip per MiB.
  constexpr size_t kBatch = kMaxPayload;
  // Sized once and filled in place (`used` bytes valid): resizing per DATA zero-filled
  // every byte before the file read overwrote it.
  std::string batch(kBatch, '\0');
  size_t used = 0;
  bool first = true;
  while (true) {
    const size_t room = std::min(kSyncDataMax, kBatch - used - 8);
    auto n = source(batch.data() + used + 8, room);
    if (!n.ok()) return n.status();
    if (*n == 0 && !first) break;
    first = false;  // an empty file still sends one DATA 0 (as adb does)
    std::string id_len;
    PutU32(id_len, kSyncData);
    PutU32(id_len, static_cast<uint32_t>(*n));
    batch.replace(used, 8, id_len);
    used += 8 + *n;
    if (*n == 0) break;
    if (used + 8 >= kBatch) {  // no room for another DATA with a byte in it
      if (Status s = stream_.Write(std::string_view(batch.data(), used), d, c); !s.ok()) return s;
      used = 0;
    }
  }
  batch.resize(used);
  return FinishSend(remote_path, std::move(batch), mtime, d, c);
}

Status SyncClient::SendCompressed(const std::function<Result<size_t>(char*, size_t)>& source,
                                  Deadline d, const CancelToken& c) {
  auto encoder = MakeSyncEncoder(mode_.compression);
  if (!encoder.ok()) return encoder.status();
  // The DATA payloads together are one compressed stream; cut it into ≤ 64 KiB pieces, each
  // Write exactly kMaxPayload bytes as in PushFrom (a batch's last piece is shortened to fit).
  std::string pending, batch;
  auto flush_pending = [&](bool all) -> Status {
    size_t at = 0;
    while (true) {
      const size_t room = kMaxPayload - batch.size() - 8;  // ≥ 1: full batches went out
      const size_t n = std::min({kSyncDataMax, room, pending.size() - at});
      if (n == 0 || (!all && n < std::min(kSyncDataMax, room))) break;  // wait for more
      PutU32(batch, kSyncData);
      PutU32(batch, static_cast<uint32_t>(n));
      batch.append(pending, at, n);
      at += n;
      if (batch.size() + 8 >= kMaxPayload) {
        Status s = stream_.Write(batch, d, c);
        batch.clear();
        if (!s.ok()) return s;
      }
    }
    pending.erase(0, at);
    if (all && !batch.empty()) {
      Status s = stream_.Write(batch, d, c);
      batch.clear();
      return s;
    }
    return Status::Ok();
  };
  auto sink = [&](std::string_view bytes) -> Status {
    pending.append(bytes);
    return flush_pending(false);
  };
  std::string chunk(kSyncDataMax, '\0');
  while (true) {
    auto n = source(chunk.data(), chunk.size());
    if (!n.ok()) return n.status();
    if (Status s = (*encoder)->Encode(std::string_view(chunk.data(), *n), *n == 0, sink); !s.ok())
      return s;
    if (*n == 0) break;
  }
  return flush_pending(true);
}

Status SyncClient::FinishSend(const std::string& remote_path, std::string batch, uint32_t mtime,
                              Deadline d, const CancelToken& c) {
  PutU32(batch, kSyncDone);
  PutU32(batch, mtime);
  if (Status s = stream_.Write(batch, d, c); !s.ok()) return s;
  auto r = ReadExact(8, d, c);
  if (!r.ok()) return r.status();
  uint32_t id = GetU32(*r, 0);
  if (id == kSyncOkay) return Status::Ok();
  if (id == kSyncFail) {
    return ErrorStatus("adb sync: push " + remote_path + ": " +
                       ReadFailMessage(GetU32(*r, 4), d, c));
  }
  return ErrorStatus("adb sync: bad reply to SEND");
}

Status SyncClient::Pull(const std::string& remote_path,
                        const std::function<Status(std::string_view)>& sink, Deadline d,
                        const CancelToken& c) {
  std::unique_ptr<SyncDecoder> decoder;
  if (mode_.v2) {
    if (remote_path.size() > kSyncPathMax) return ErrorStatus("adb sync: path too long");
    auto dec = MakeSyncDecoder(mode_.compression);
    if (!dec.ok()) return dec.status();
    decoder = std::move(*dec);
    std::string request = EncodeSyncRequest(kSyncRcv2, remote_path);
    PutU32(request, kSyncRcv2);
    PutU32(request, static_cast<uint32_t>(mode_.compression));
    if (Status s = stream_.Write(request, d, c); !s.ok()) return s;
  } else if (Status s = SendRequest(kSyncRecv, remote_path, d, c); !s.ok()) {
    return s;
  }
  const bool plain = !decoder || mode_.compression == SyncCompression::kNone;
  while (true) {
    auto r = ReadExact(8, d, c);
    if (!r.ok()) return r.status();
    uint32_t id = GetU32(*r, 0), len = GetU32(*r, 4);
    if (id == kSyncDone) return plain ? Status::Ok() : decoder->Finish();
    if (id == kSyncFail) {
      return ErrorStatus("adb sync: pull " + remote_path + ": " + ReadFailMessage(len, d, c));
    }
    if (id != kSyncData) {
      return ErrorStatus("adb sync: pull " + remote_path + ": unexpected reply '" +
                         EscapeForTerminal(r->substr(0, 4)) + "' (a protocol error)");
    }
    if (len > kSyncDataMax) {
      return ErrorStatus("adb sync: pull " + remote_path + ": device sent a DATA record of " +
                         std::to_string(len) + " bytes; the limit is " +
                         std::to_string(kSyncDataMax) + " (a protocol error)");
    }
    auto chunk = ReadView(len, d, c);  // DATA goes to the sink straight from the WRTE payload
    if (!chunk.ok()) return chunk.status();
    Status s = plain ? sink(*chunk) : decoder->Decode(*chunk, sink);
    if (!s.ok()) return s;
  }
}

Status SyncClient::Quit(Deadline d, const CancelToken& c) {
  return stream_.Write(EncodeSyncRequest(kSyncQuit, {}), d, c);
}

}  // namespace fathom::adb
