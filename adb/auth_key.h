// One RSA-2048 adb key: PEM load/save, token signing, Android public-key format (spec §5).
// Wraps OpenSSL 3 EVP_PKEY; thread-compatible (const methods may run concurrently).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"

typedef struct evp_pkey_st EVP_PKEY;

namespace fathom::adb {

inline constexpr size_t kAndroidPubkeyBlobSize = 524;

class AuthKey {
 public:
  // Fresh 2048-bit key with e = 65537, as `adb keygen` makes.
  static Result<AuthKey> Generate();
  // Accepts PKCS#8 ("BEGIN PRIVATE KEY", what adb writes) and PKCS#1 ("BEGIN RSA PRIVATE KEY").
  static Result<AuthKey> FromPem(std::string_view pem);

  // PKCS#8 PEM, the format Google's adb writes to ~/.android/adbkey.
  Result<std::string> ToPem() const;

  // PKCS#1 v1.5 signature over the raw token used as if it were a SHA-1 digest: the token
  // is NOT hashed again, otherwise devices reject it and prompt on every connection.
  Result<std::string> SignToken(std::string_view token) const;

  // 524-byte little-endian blob: word count, n0inv, n, rr, e.
  Result<std::string> AndroidPublicKeyBlob() const;
  // base64(blob) + " " + user_info, no line breaks; the content of adbkey.pub and of the
  // AUTH(RSAPUBLICKEY) payload (which additionally gets a trailing NUL).
  Result<std::string> AndroidPublicKeyText(std::string_view user_info) const;

  EVP_PKEY* pkey() const { return pkey_.get(); }

 private:
  explicit AuthKey(std::shared_ptr<EVP_PKEY> pkey) : pkey_(std::move(pkey)) {}
  std::shared_ptr<EVP_PKEY> pkey_;
};

// Device side of the same formats, used by our fake device in tests and by anything that
// needs to check a key: parse "base64 [comment]" back into an RSA public key, and verify.
class AuthPublicKey {
 public:
  static Result<AuthPublicKey> FromAndroidText(std::string_view text);
  bool VerifyToken(std::string_view token, std::string_view signature) const;
  EVP_PKEY* pkey() const { return pkey_.get(); }

 private:
  explicit AuthPublicKey(EVP_PKEY* pkey);
  std::shared_ptr<EVP_PKEY> pkey_;
};

// "user@host" for the public-key comment, from the same sources adb uses: LOGNAME or the
// login name, HOSTNAME or gethostname(); "unknown" when empty (adb 29 would write " @unknown"
// for an empty user because of a bug; we do not copy that).
std::string DefaultUserInfo();

}  // namespace fathom::adb
