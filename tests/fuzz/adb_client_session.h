// The host side of one adb session, shared by the client fuzz target and the
// seed recorder (seeds-gen/adb_seeds.cc) so that recorded device answers
// match what the fuzzer's host asks: two shell commands ("echo hi", then
// "cat" with stdin when the device has shell_v2) and a sync session (stat,
// list, pull, push, quit).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "adb/connection.h"
#include "adb/device_services.h"

namespace fathom::fuzz {

// Sees every byte the sync client reads (the recorder), or nothing.
using ReadTap = std::function<void(std::string_view)>;

class TapStream : public adb::ByteStream {
 public:
  TapStream(adb::ByteStream& inner, ReadTap tap) : inner_(inner), tap_(std::move(tap)) {}
  Status Write(std::string_view data, adb::Deadline d, const adb::CancelToken& c) override {
    return inner_.Write(data, d, c);
  }
  Result<size_t> Read(std::string* out, adb::Deadline d, const adb::CancelToken& c) override {
    const size_t before = out->size();
    auto got = inner_.Read(out, d, c);
    if (got.ok()) tap_(std::string_view(*out).substr(before));
    return got;
  }
  void Close() override { inner_.Close(); }

 private:
  adb::ByteStream& inner_;
  ReadTap tap_;
};

inline constexpr const char* kSessionFile = "/data/local/tmp/f";
inline constexpr const char* kSessionDir = "/data/local/tmp";

// Runs the session; `check` gets what came back (output sizes, pulled
// bytes) and aborts on a broken invariant in the fuzz target.
inline void RunSession(adb::Connection& conn, uint64_t device_bytes, const ReadTap& tap = {}) {
  using namespace adb;
  auto soon = [] { return Deadline::After(Millis(300)); };
  auto check = [](bool ok) {
    if (!ok) abort();
  };
  const Banner& banner = conn.device_banner();
  const bool v2 = banner.Has("shell_v2");
  auto echo = RunShell(conn, "echo hi", "", soon());
  // Output comes from WRTE payloads, which come from the device's bytes.
  if (echo.ok()) check(echo->out.size() + echo->err.size() <= device_bytes);
  if (v2) {
    auto cat = RunShell(conn, "cat", "input", soon());
    if (cat.ok()) check(cat->out.size() + cat->err.size() <= device_bytes);
  }
  auto session = OpenSync(conn, soon());
  if (!session.ok()) return;
  std::unique_ptr<TapStream> tapped;
  std::unique_ptr<SyncClient> tapped_client;
  SyncClient* sync = session->client.get();
  if (tap) {
    tapped = std::make_unique<TapStream>(*session->stream, tap);
    tapped_client = std::make_unique<SyncClient>(*tapped, banner.Has("stat_v2"),
                                                 banner.Has("ls_v2"), sync->transfer_mode());
    sync = tapped_client.get();
  }
  (void)sync->Stat(kSessionFile, soon(), {});
  (void)sync->List(kSessionDir, soon(), {});
  uint64_t pulled = 0;
  (void)sync->Pull(kSessionFile,
                   [&](std::string_view piece) {
                     pulled += piece.size();
                     return Status::Ok();
                   },
                   soon(), {});
  if (sync->transfer_mode().compression == SyncCompression::kNone) check(pulled <= device_bytes);
  (void)sync->Push(std::string(5000, 'x'), std::string(kSessionDir) + "/g", 0100644, 0, soon(), {});
  (void)sync->Quit(soon(), {});
  session->stream->Close();
}

}  // namespace fathom::fuzz
