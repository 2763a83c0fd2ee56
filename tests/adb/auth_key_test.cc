#include "adb/auth_key.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>
#include <openssl/sha.h>
#include <sys/stat.h>

#include <random>

#include "adb/key_store.h"
#include "adb/message.h"
#include "test_util.h"

namespace fathom::adb {
namespace {

using testing::ReadFileOrEmpty;
using testing::RunCommand;
using testing::ScopedEnv;
using testing::TempDir;

std::string RandomToken() {
  std::mt19937 rng(42);
  std::string t(kAuthTokenSize, '\0');
  for (char& c : t) c = static_cast<char>(rng());
  return t;
}

// Recovers the PKCS#1 v1.5 block with the raw public operation and checks its exact layout:
// 00 01 FF..FF 00 + SHA-1 DigestInfo + the token itself (not a hash of it).
TEST(AuthKeyTest, SignatureIsRawTokenWithSha1DigestInfo) {
  auto key = AuthKey::Generate();
  ASSERT_TRUE(key.ok()) << key.status().message();
  std::string token = RandomToken();
  auto sig = key->SignToken(token);
  ASSERT_TRUE(sig.ok()) << sig.status().message();
  ASSERT_EQ(sig->size(), 256u);

  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new(key->pkey(), nullptr);
  ASSERT_EQ(EVP_PKEY_verify_recover_init(ctx), 1);
  ASSERT_EQ(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_NO_PADDING), 1);
  unsigned char block[256];
  size_t len = sizeof(block);
  ASSERT_EQ(EVP_PKEY_verify_recover(
                ctx, block, &len, reinterpret_cast<const unsigned char*>(sig->data()), sig->size()),
            1);
  EVP_PKEY_CTX_free(ctx);
  ASSERT_EQ(len, 256u);
  const unsigned char prefix[] = {0x30, 0x21, 0x30, 0x09, 0x06, 0x05, 0x2B, 0x0E,
                                  0x03, 0x02, 0x1A, 0x05, 0x00, 0x04, 0x14};
  EXPECT_EQ(block[0], 0x00);
  EXPECT_EQ(block[1], 0x01);
  const size_t tail = 1 + sizeof(prefix) + kAuthTokenSize;
  for (size_t i = 2; i < 256 - tail; ++i) ASSERT_EQ(block[i], 0xFF) << i;
  EXPECT_EQ(block[256 - tail], 0x00);
  EXPECT_EQ(std::string(reinterpret_cast<char*>(block) + 256 - tail + 1, sizeof(prefix)),
            std::string(reinterpret_cast<const char*>(prefix), sizeof(prefix)));
  EXPECT_EQ(std::string(reinterpret_cast<char*>(block) + 256 - kAuthTokenSize, kAuthTokenSize),
            token);
}

TEST(AuthKeyTest, PublicKeyTextRoundTripsAndVerifies) {
  auto key = AuthKey::Generate();
  ASSERT_TRUE(key.ok());
  auto blob = key->AndroidPublicKeyBlob();
  ASSERT_TRUE(blob.ok());
  EXPECT_EQ(blob->size(), kAndroidPubkeyBlobSize);
  EXPECT_EQ(GetU32(*blob, 0), 64u);
  EXPECT_EQ(GetU32(*blob, 520), 65537u);
  auto text = key->AndroidPublicKeyText("me@box");
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(text->rfind("QAAAA", 0), 0u);
  EXPECT_TRUE(text->ends_with(" me@box"));
  EXPECT_EQ(text->find('\n'), std::string::npos);

  auto pub = AuthPublicKey::FromAndroidText(*text);
  ASSERT_TRUE(pub.ok()) << pub.status().message();
  std::string token = RandomToken();
  auto sig = key->SignToken(token);
  ASSERT_TRUE(sig.ok());
  EXPECT_TRUE(pub->VerifyToken(token, *sig));
  std::string other = token;
  other[0] ^= 1;
  EXPECT_FALSE(pub->VerifyToken(other, *sig));

  // n0inv * n ≡ -1 (mod 2^32): check against the low modulus word.
  uint32_t n0inv = GetU32(*blob, 4), n_low = GetU32(*blob, 8);
  EXPECT_EQ(static_cast<uint32_t>(n0inv * n_low), 0xFFFFFFFFu);
}

TEST(AuthKeyTest, PemRoundTripKeepsKey) {
  auto key = AuthKey::Generate();
  ASSERT_TRUE(key.ok());
  auto pem = key->ToPem();
  ASSERT_TRUE(pem.ok());
  EXPECT_EQ(pem->rfind("-----BEGIN PRIVATE KEY-----", 0), 0u);
  auto again = AuthKey::FromPem(*pem);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again->AndroidPublicKeyText("x@y"), *key->AndroidPublicKeyText("x@y"));
  EXPECT_FALSE(AuthKey::FromPem("not a key").ok());
}

// The key Google's adb made must load, and our encoding of its public half must equal the
// adbkey.pub it wrote, byte for byte.
TEST(AuthKeyTest, ReadsKeyWrittenByGoogleAdb) {
  if (!testing::HaveRealAdb()) GTEST_SKIP() << "adb not installed";
  TempDir tmp;
  int rc = 0;
  RunCommand("HOME=" + tmp.path().string() + " LOGNAME=fathomtest HOSTNAME=testhost adb keygen " +
                 (tmp.path() / "adbkey").string() + " 2>/dev/null",
             &rc);
  ASSERT_EQ(rc, 0);
  std::string pub_file = ReadFileOrEmpty(tmp.path() / "adbkey.pub");
  ASSERT_FALSE(pub_file.empty());

  ScopedEnv home("ANDROID_USER_HOME", tmp.path().string());
  auto key = LoadOrCreateUserKey(tmp.path());
  ASSERT_TRUE(key.ok()) << key.status().message();
  auto text = key->AndroidPublicKeyText("fathomtest@testhost");
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, pub_file);
}

TEST(AuthKeyTest, CreatesKeyPairWith0600AndReusesIt) {
  TempDir tmp;
  auto dir = tmp.path() / "nested" / ".android";
  ScopedEnv user("LOGNAME", "alice");
  ScopedEnv host("HOSTNAME", "lab");
  auto key = LoadOrCreateUserKey(dir);
  ASSERT_TRUE(key.ok()) << key.status().message();
  struct stat st {};
  ASSERT_EQ(stat((dir / "adbkey").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(stat((dir / "adbkey.pub").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  std::string pub = ReadFileOrEmpty(dir / "adbkey.pub");
  EXPECT_TRUE(pub.ends_with(" alice@lab"));
  EXPECT_EQ(pub, *key->AndroidPublicKeyText("alice@lab"));

  auto again = LoadOrCreateUserKey(dir);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again->AndroidPublicKeyText("a@b"), *key->AndroidPublicKeyText("a@b"));

  // Google's adb can use the key we wrote: its `adb pubkey` prints the same public key.
  if (testing::HaveRealAdb()) {
    std::string adb_pub = RunCommand("LOGNAME=alice HOSTNAME=lab adb pubkey " +
                                     (dir / "adbkey").string() + " 2>/dev/null");
    while (!adb_pub.empty() && adb_pub.back() == '\n') adb_pub.pop_back();
    EXPECT_EQ(adb_pub, pub);
  }
}

TEST(AuthKeyTest, HonoursAndroidUserHomeAndVendorKeys) {
  TempDir tmp;
  ScopedEnv home("ANDROID_USER_HOME", (tmp.path() / "ah").string());
  auto dir = AndroidUserHome();
  ASSERT_TRUE(dir.ok());
  EXPECT_EQ(*dir, tmp.path() / "ah");

  auto vendor1 = AuthKey::Generate();
  auto vendor2 = AuthKey::Generate();
  ASSERT_TRUE(vendor1.ok() && vendor2.ok());
  std::filesystem::create_directories(tmp.path() / "vdir");
  ASSERT_TRUE(WritePrivateFile(tmp.path() / "v1.pem", *vendor1->ToPem()).ok());
  ASSERT_TRUE(WritePrivateFile(tmp.path() / "vdir" / "x.adb_key", *vendor2->ToPem()).ok());
  ASSERT_TRUE(WritePrivateFile(tmp.path() / "vdir" / "ignored.txt", "junk").ok());
  ScopedEnv vendor("ADB_VENDOR_KEYS", (tmp.path() / "v1.pem").string() + ":" +
                                          (tmp.path() / "vdir").string() + ":/nonexistent");
  auto all = LoadAllKeys();
  ASSERT_TRUE(all.ok()) << all.status().message();
  ASSERT_EQ(all->size(), 3u);
  EXPECT_TRUE(std::filesystem::exists(tmp.path() / "ah" / "adbkey"));
  EXPECT_EQ(*(*all)[1].AndroidPublicKeyText("a@b"), *vendor1->AndroidPublicKeyText("a@b"));
  EXPECT_EQ(*(*all)[2].AndroidPublicKeyText("a@b"), *vendor2->AndroidPublicKeyText("a@b"));
}

}  // namespace
}  // namespace fathom::adb
