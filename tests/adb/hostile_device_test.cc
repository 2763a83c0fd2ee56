// The library against fathom-test-adbd's hostile device (test_adbd/hostile_adbd.h) run
// in-process: every protocol-level misbehaviour ends in an error that names it, within the
// small limits set here, and memory stays bounded (a 4 GiB shell frame is refused at its
// header). The command-line side (files left behind, signals) is adb_hostile_device_test.sh.
#include <gtest/gtest.h>

#include "adb/device_connector.h"
#include "adb/device_services.h"
#include "adb/shell_protocol.h"
#include "test_adbd/hostile_adbd.h"

namespace fathom::adb {
namespace {

using testing::HostileAdbdServer;
using testing::HostileOptions;

// Small, yet far above how long the double takes to answer on a loaded machine.
constexpr Millis kLimit{1500};

struct Outcome {
  Status status;
  std::string out;
};

// Connects with small limits and runs `echo hi` (a shell) or stats+pulls /data/file.bin.
Outcome Exercise(const std::string& mode, bool pull) {
  HostileAdbdServer server(0, mode, HostileOptions{});
  EXPECT_TRUE(server.ok());
  ConnectionOptions o;
  auto key = AuthKey::Generate();
  EXPECT_TRUE(key.ok());
  o.keys.push_back(std::move(*key));
  o.handshake_timeout = o.user_confirm_timeout = o.open_timeout = o.idle_timeout = kLimit;
  auto conn = ConnectDirect("127.0.0.1:" + std::to_string(server.port()), std::move(o));
  if (!conn.ok()) return {conn.status(), ""};
  const Deadline d = Deadline::After(Millis(30000));  // only a hang reaches it
  if (!pull) {
    auto r = RunShell(**conn, "echo hi", "", d);
    return r.ok() ? Outcome{Status::Ok(), r->out} : Outcome{r.status(), ""};
  }
  auto sync = OpenSync(**conn, d);
  if (!sync.ok()) return {sync.status(), ""};
  auto st = sync->client->Stat("/data/file.bin", d, {});
  if (!st.ok()) return {st.status(), ""};
  std::string got;
  Status pulled = sync->client->Pull("/data/file.bin",
                                     [&](std::string_view b) {
                                       if (got.size() < (8u << 20)) got.append(b);
                                       return Status::Ok();
                                     },
                                     d, {});
  return {pulled, got};
}

struct Case {
  const char* mode;
  bool pull;
  const char* error;  // a part of the message; "" for success
};

class HostileDevice : public ::testing::TestWithParam<Case> {};

TEST_P(HostileDevice, EndsWithANamedError) {
  const Case& c = GetParam();
  const auto t0 = Clock::now();
  Outcome r = Exercise(c.mode, c.pull);
  if (std::string(c.error).empty()) {
    EXPECT_TRUE(r.status.ok()) << r.status.message();
  } else {
    ASSERT_FALSE(r.status.ok()) << c.mode << " succeeded";
    EXPECT_NE(r.status.message().find(c.error), std::string::npos) << r.status.message();
  }
  // Far below the 30 s deadline above: the small limits ended it, not the test's bound.
  EXPECT_LT(Clock::now() - t0, Millis(20000));
}

INSTANTIATE_TEST_SUITE_P(
    Modes, HostileDevice,
    ::testing::Values(
        Case{"silent", false, "did not answer CNXN within 1.5 s (--timeout-connect)"},
        Case{"bad_magic", false, "bad message magic for CNXN"}, Case{"bad_checksum_v1", false, ""},
        Case{"cnxn_banner_1mb", false, "exceeds the limit of 65536"},
        Case{"cnxn_banner_claims_16mb", false, "CNXN payload of 16777216 bytes"},
        Case{"cnxn_banner_weird", false, ""}, Case{"cnxn_zero_maxdata", false, "zero max payload"},
        Case{"cnxn_tiny_maxdata", false, "max payload of 1 bytes"},
        Case{"auth_loop", false, "not allowed within 1.5 s (--timeout-auth)"},
        Case{"auth_token_flood", false, "(an AUTH loop)"},
        Case{"auth_bad_token_size", false, "bad AUTH token size (4000 bytes"},
        Case{"stls", false, "wants TLS"},
        Case{"open_refused", false, "refused service 'shell,v2,raw:echo hi'"},
        Case{"open_no_reply", false,
             "did not answer OPEN of 'shell,v2,raw:echo hi' within 1.5 s (--timeout-open)"},
        Case{"payload_len_gt_max", false, "WRTE payload of 2147483647 bytes exceeds"},
        Case{"payload_len_max_plus_1", false, "WRTE payload of 1048577 bytes exceeds"},
        Case{"wrte_unknown_ids", false, "streams that were never opened"},
        Case{"okay_flood", false, "streams that were never opened"},
        Case{"clse_unknown_flood", false, "streams that were never opened"},
        Case{"shell_frame_4gb", false, "of 4294967295 bytes; the limit is 16777216"},
        Case{"shell_no_exit", false, "without an exit status"},
        Case{"shell_flood_no_ack", false, "without waiting for our OKAY"},
        Case{"shell_stall", false, "sent nothing on 'shell,v2,raw:echo hi' within 1.5 s"},
        Case{"shell_bad_frame_id", false, ""},
        Case{"stat_enoent", true, "errno 2 (No such file or directory)"},
        Case{"sync_data_1gb", true, "DATA record of 1073741824 bytes; the limit is 65536"},
        Case{"pull_close_mid", true, "lost: "},
        Case{"pull_clse_mid", true, "device closed the stream"},
        Case{"pull_stall_mid", true, "sent nothing on 'sync:' within 1.5 s (--timeout-idle)"},
        Case{"pull_fail_huge_msg", true, "(a FAIL claiming 4294967295 bytes)"},
        Case{"pull_bad_id", true, "unexpected reply 'XXXX'"}),
    [](const ::testing::TestParamInfo<Case>& i) { return std::string(i.param.mode); });

TEST(ShellFrameReader, StreamsBigFramesAndRefusesHugeOnes) {
  ShellFrameReader r;
  std::string out;
  auto sink = [&](ShellId id, std::string_view p) {
    EXPECT_EQ(id, ShellId::kStdout);
    EXPECT_LE(p.size(), 1000u);  // handed out as it arrives, not once whole
    out.append(p);
  };
  std::string frame = EncodeShellPacket(ShellId::kStdout, std::string(5000, 'x'));
  for (size_t at = 0; at < frame.size(); at += 1000) {
    ASSERT_TRUE(r.Feed(std::string_view(frame).substr(at, 1000), sink).ok());
  }
  ASSERT_TRUE(r.Feed(EncodeShellPacket(ShellId::kExit, "\x07"), sink).ok());
  EXPECT_EQ(out, std::string(5000, 'x'));
  EXPECT_EQ(r.exit_code(), 7);

  ShellFrameReader huge;
  std::string header(1, '\1');
  PutU32(header, 0xffffffffu);
  Status s = huge.Feed(header, sink);
  EXPECT_FALSE(s.ok());
  ShellFrameReader big_exit;
  EXPECT_FALSE(big_exit.Feed(EncodeShellPacket(ShellId::kExit, std::string(300, '\0')), sink).ok());
}

TEST(Timeouts, ParseFormatAndCombine) {
  EXPECT_EQ(*ParseTimeoutSeconds("10"), Millis(10000));
  EXPECT_EQ(*ParseTimeoutSeconds("0.25"), Millis(250));
  EXPECT_EQ(*ParseTimeoutSeconds("0"), Millis(0));
  EXPECT_FALSE(ParseTimeoutSeconds("-1").ok());
  EXPECT_FALSE(ParseTimeoutSeconds("10s").ok());
  EXPECT_FALSE(ParseTimeoutSeconds("").ok());
  EXPECT_EQ(FormatLimit(Millis(10000)), "10 s");
  EXPECT_EQ(FormatLimit(Millis(250)), "0.25 s");
  EXPECT_TRUE(WithLimit(Deadline::Never(), Millis(0)).never());
  EXPECT_FALSE(WithLimit(Deadline::Never(), Millis(10)).never());
  EXPECT_EQ(TimeoutError("device did not answer OPEN", Millis(10000), "--timeout-open").message(),
            "device did not answer OPEN within 10 s (--timeout-open)");
}

}  // namespace
}  // namespace fathom::adb
