#include "adb/auth_key.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include <cstdlib>
#include <vector>

#ifndef _WIN32
#include <unistd.h>
#endif

namespace fathom::adb {
namespace {

constexpr int kModulusBytes = 256;
constexpr uint32_t kModulusWords = kModulusBytes / 4;

Status OpenSslError(const std::string& what) {
  unsigned long e = ERR_get_error();
  char buf[256] = {0};
  if (e) ERR_error_string_n(e, buf, sizeof(buf));
  ERR_clear_error();
  return ErrorStatus("adb key: " + what + (e ? std::string(": ") + buf : std::string()));
}

struct BnFree {
  void operator()(BIGNUM* b) const { BN_free(b); }
};
using Bn = std::unique_ptr<BIGNUM, BnFree>;
struct CtxFree {
  void operator()(EVP_PKEY_CTX* c) const { EVP_PKEY_CTX_free(c); }
};
using PkeyCtx = std::unique_ptr<EVP_PKEY_CTX, CtxFree>;

std::shared_ptr<EVP_PKEY> Own(EVP_PKEY* p) { return std::shared_ptr<EVP_PKEY>(p, EVP_PKEY_free); }

}  // namespace

Result<AuthKey> AuthKey::Generate() {
  PkeyCtx ctx(EVP_PKEY_CTX_new_id(EVP_PKEY_RSA, nullptr));
  if (!ctx || EVP_PKEY_keygen_init(ctx.get()) <= 0 ||
      EVP_PKEY_CTX_set_rsa_keygen_bits(ctx.get(), 2048) <= 0) {
    return OpenSslError("keygen setup");
  }
  // e = 65537 is OpenSSL's default and what adb uses.
  EVP_PKEY* pkey = nullptr;
  if (EVP_PKEY_keygen(ctx.get(), &pkey) <= 0) return OpenSslError("keygen");
  return AuthKey(Own(pkey));
}

Result<AuthKey> AuthKey::FromPem(std::string_view pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  if (!bio) return OpenSslError("BIO");
  EVP_PKEY* pkey = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  if (!pkey) return OpenSslError("not a PEM private key");
  if (EVP_PKEY_get_base_id(pkey) != EVP_PKEY_RSA || EVP_PKEY_get_bits(pkey) != 2048) {
    EVP_PKEY_free(pkey);
    return ErrorStatus("adb key: not an RSA-2048 key (the Android key format needs 2048 bits)");
  }
  return AuthKey(Own(pkey));
}

Result<std::string> AuthKey::ToPem() const {
  BIO* bio = BIO_new(BIO_s_mem());
  if (!bio) return OpenSslError("BIO");
  // PEM_write_bio_PrivateKey writes PKCS#8, matching Google's adb.
  if (!PEM_write_bio_PrivateKey(bio, pkey_.get(), nullptr, nullptr, 0, nullptr, nullptr)) {
    BIO_free(bio);
    return OpenSslError("PEM write");
  }
  char* data = nullptr;
  long len = BIO_get_mem_data(bio, &data);
  std::string out(data, static_cast<size_t>(len));
  BIO_free(bio);
  return out;
}

Result<std::string> AuthKey::SignToken(std::string_view token) const {
  PkeyCtx ctx(EVP_PKEY_CTX_new(pkey_.get(), nullptr));
  // Setting a signature md on EVP_PKEY_sign (not EVP_DigestSign) means "the input already is
  // a digest of this type": OpenSSL prepends the SHA-1 DigestInfo and does not hash.
  if (!ctx || EVP_PKEY_sign_init(ctx.get()) <= 0 ||
      EVP_PKEY_CTX_set_rsa_padding(ctx.get(), RSA_PKCS1_PADDING) <= 0 ||
      EVP_PKEY_CTX_set_signature_md(ctx.get(), EVP_sha1()) <= 0) {
    return OpenSslError("sign setup");
  }
  size_t len = 0;
  auto in = reinterpret_cast<const unsigned char*>(token.data());
  if (EVP_PKEY_sign(ctx.get(), nullptr, &len, in, token.size()) <= 0) return OpenSslError("sign");
  std::string sig(len, '\0');
  if (EVP_PKEY_sign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()), &len, in,
                    token.size()) <= 0) {
    return OpenSslError("sign");
  }
  sig.resize(len);
  return sig;
}

Result<std::string> AuthKey::AndroidPublicKeyBlob() const {
  BIGNUM* n_raw = nullptr;
  BIGNUM* e_raw = nullptr;
  if (!EVP_PKEY_get_bn_param(pkey_.get(), OSSL_PKEY_PARAM_RSA_N, &n_raw) ||
      !EVP_PKEY_get_bn_param(pkey_.get(), OSSL_PKEY_PARAM_RSA_E, &e_raw)) {
    BN_free(n_raw);
    BN_free(e_raw);
    return OpenSslError("read public key");
  }
  Bn n(n_raw), e(e_raw);
  std::unique_ptr<BN_CTX, decltype(&BN_CTX_free)> bctx(BN_CTX_new(), BN_CTX_free);
  Bn r32(BN_new()), n0inv(BN_new()), rr(BN_new()), nmod(BN_new());
  // n0inv = -1/n mod 2^32 and rr = (2^2048)^2 mod n: Montgomery constants old adbd used.
  bool ok = bctx && r32 && n0inv && rr && nmod && BN_set_bit(r32.get(), 32) &&
            BN_mod(nmod.get(), n.get(), r32.get(), bctx.get()) &&
            BN_mod_inverse(n0inv.get(), nmod.get(), r32.get(), bctx.get()) &&
            BN_sub(n0inv.get(), r32.get(), n0inv.get()) && BN_set_bit(rr.get(), 2048 * 2) &&
            BN_mod(rr.get(), rr.get(), n.get(), bctx.get());
  if (!ok) return OpenSslError("Montgomery constants");

  std::string blob;
  blob.reserve(kAndroidPubkeyBlobSize);
  auto put_u32 = [&](uint32_t v) {
    for (int i = 0; i < 4; ++i) blob.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  };
  auto put_le = [&](const BIGNUM* b) {
    unsigned char buf[kModulusBytes];
    if (BN_bn2lebinpad(b, buf, kModulusBytes) != kModulusBytes) return false;
    blob.append(reinterpret_cast<char*>(buf), kModulusBytes);
    return true;
  };
  put_u32(kModulusWords);
  put_u32(static_cast<uint32_t>(BN_get_word(n0inv.get())));
  if (!put_le(n.get()) || !put_le(rr.get())) return ErrorStatus("adb key: modulus too large");
  put_u32(static_cast<uint32_t>(BN_get_word(e.get())));
  return blob;
}

Result<std::string> AuthKey::AndroidPublicKeyText(std::string_view user_info) const {
  auto blob = AndroidPublicKeyBlob();
  if (!blob.ok()) return blob.status();
  // EVP_EncodeBlock: plain base64 with padding and no line breaks (line breaks make devices
  // forget the key).
  std::string b64(4 * ((blob->size() + 2) / 3) + 1, '\0');
  int len = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(b64.data()),
                            reinterpret_cast<const unsigned char*>(blob->data()),
                            static_cast<int>(blob->size()));
  b64.resize(static_cast<size_t>(len));
  return b64 + " " + std::string(user_info);
}

AuthPublicKey::AuthPublicKey(EVP_PKEY* pkey) : pkey_(Own(pkey)) {}

Result<AuthPublicKey> AuthPublicKey::FromAndroidText(std::string_view text) {
  while (!text.empty() && (text.back() == '\0' || text.back() == '\n')) text.remove_suffix(1);
  std::string_view b64 = text.substr(0, text.find(' '));
  std::vector<unsigned char> blob(b64.size() / 4 * 3 + 3);
  int len = EVP_DecodeBlock(blob.data(), reinterpret_cast<const unsigned char*>(b64.data()),
                            static_cast<int>(b64.size()));
  // EVP_DecodeBlock counts padding as zero bytes; the blob is 524 = 174*3 + 2 bytes.
  if (len < static_cast<int>(kAndroidPubkeyBlobSize)) {
    return ErrorStatus("adb key: public key is not valid base64 of a 524-byte blob");
  }
  std::string_view raw(reinterpret_cast<char*>(blob.data()), kAndroidPubkeyBlobSize);
  uint32_t words = 0, e = 0;
  for (int i = 0; i < 4; ++i) words |= uint32_t(uint8_t(raw[i])) << (8 * i);
  for (int i = 0; i < 4; ++i) e |= uint32_t(uint8_t(raw[520 + i])) << (8 * i);
  if (words != kModulusWords) return ErrorStatus("adb key: public key is not 2048 bits");

  Bn n(BN_lebin2bn(blob.data() + 8, kModulusBytes, nullptr));
  Bn bn_e(BN_new());
  if (!n || !bn_e || !BN_set_word(bn_e.get(), e)) return OpenSslError("bignum");
  OSSL_PARAM_BLD* bld = OSSL_PARAM_BLD_new();
  OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, n.get());
  OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, bn_e.get());
  OSSL_PARAM* params = OSSL_PARAM_BLD_to_param(bld);
  OSSL_PARAM_BLD_free(bld);
  PkeyCtx ctx(EVP_PKEY_CTX_new_from_name(nullptr, "RSA", nullptr));
  EVP_PKEY* pkey = nullptr;
  bool ok = params && ctx && EVP_PKEY_fromdata_init(ctx.get()) > 0 &&
            EVP_PKEY_fromdata(ctx.get(), &pkey, EVP_PKEY_PUBLIC_KEY, params) > 0;
  OSSL_PARAM_free(params);
  if (!ok) return OpenSslError("build public key");
  return AuthPublicKey(pkey);
}

bool AuthPublicKey::VerifyToken(std::string_view token, std::string_view signature) const {
  PkeyCtx ctx(EVP_PKEY_CTX_new(pkey_.get(), nullptr));
  if (!ctx || EVP_PKEY_verify_init(ctx.get()) <= 0 ||
      EVP_PKEY_CTX_set_rsa_padding(ctx.get(), RSA_PKCS1_PADDING) <= 0 ||
      EVP_PKEY_CTX_set_signature_md(ctx.get(), EVP_sha1()) <= 0) {
    ERR_clear_error();
    return false;
  }
  int r = EVP_PKEY_verify(ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()),
                          signature.size(), reinterpret_cast<const unsigned char*>(token.data()),
                          token.size());
  ERR_clear_error();
  return r == 1;
}

std::string DefaultUserInfo() {
  std::string host;
  if (const char* h = std::getenv("HOSTNAME")) host = h;
  std::string user;
  if (const char* u = std::getenv("LOGNAME")) user = u;
#ifdef _WIN32
  if (user.empty()) {
    if (const char* u = std::getenv("USERNAME")) user = u;
  }
  if (host.empty()) {
    if (const char* c = std::getenv("COMPUTERNAME")) host = c;
  }
#else
  if (host.empty()) {
    char buf[256] = {0};
    if (gethostname(buf, sizeof(buf) - 1) == 0) host = buf;
  }
  if (user.empty()) {
    if (const char* u = getlogin()) user = u;
  }
#endif
  if (host.empty()) host = "unknown";
  if (user.empty()) user = "unknown";
  return user + "@" + host;
}

}  // namespace fathom::adb
