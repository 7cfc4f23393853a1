#include "core/digest.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <stdexcept>

namespace budcore::core {

namespace {

std::string hex(const unsigned char* bytes, std::size_t n) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(2 * n, '0');
  for (std::size_t i = 0; i < n; ++i) {
    out[2 * i] = kHex[bytes[i] >> 4];
    out[2 * i + 1] = kHex[bytes[i] & 0xF];
  }
  return out;
}

}  // namespace

std::string sha256_hex(std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  // EVP_Digest is one call with no state to leak; it fails only when libcrypto is broken.
  if (EVP_Digest(data.data(), data.size(), md, &len, EVP_sha256(), nullptr) != 1 || len != 32) {
    throw std::runtime_error("libcrypto: SHA-256 failed");
  }
  return hex(md, 32);
}

std::string hmac_sha256_hex(std::string_view key, std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  // The one-shot HMAC keeps no context to free; it fails only when libcrypto is broken.
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
           data.size(), md, &len) == nullptr ||
      len != 32) {
    throw std::runtime_error("libcrypto: HMAC-SHA256 failed");
  }
  return hex(md, 32);
}

std::string random_hex(std::size_t bytes) {
  std::string raw(bytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(raw.data()), static_cast<int>(bytes)) != 1)
    throw std::runtime_error("libcrypto: RAND_bytes failed");
  return hex(reinterpret_cast<const unsigned char*>(raw.data()), bytes);
}

}  // namespace budcore::core
