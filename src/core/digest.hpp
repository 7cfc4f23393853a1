// SHA-256 digests (OpenSSL's libcrypto): the audit log's hash chain and the before/after
// digests of audited objects. Internal: no public header exposes a hash.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#pragma GCC visibility push(hidden)

namespace budcore::core {

// Lower-case hex of SHA-256(data): 64 characters.
std::string sha256_hex(std::string_view data);

// Lower-case hex of HMAC-SHA256(key, data): 64 characters.
std::string hmac_sha256_hex(std::string_view key, std::string_view data);

// `bytes` bytes from libcrypto's CSPRNG as lower-case hex (2 * bytes characters).
std::string random_hex(std::size_t bytes);

// The digest a hash chain starts from (64 zeros).
inline constexpr std::string_view kZeroDigest = "0000000000000000000000000000000000000000000000000000000000000000";

}  // namespace budcore::core

#pragma GCC visibility pop
