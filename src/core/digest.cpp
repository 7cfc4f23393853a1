#include "core/digest.hpp"

#include <openssl/evp.h>

#include <stdexcept>

namespace budcore::core {

std::string sha256_hex(std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  // EVP_Digest is one call with no state to leak; it fails only when libcrypto is broken.
  if (EVP_Digest(data.data(), data.size(), md, &len, EVP_sha256(), nullptr) != 1 || len != 32) {
    throw std::runtime_error("libcrypto: SHA-256 failed");
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(64, '0');
  for (unsigned i = 0; i < 32; ++i) {
    out[2 * i] = kHex[md[i] >> 4];
    out[2 * i + 1] = kHex[md[i] & 0xF];
  }
  return out;
}

}  // namespace budcore::core
