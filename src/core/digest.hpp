// SHA-256 digests (OpenSSL's libcrypto): the audit log's hash chain and the before/after
// digests of audited objects. Internal: no public header exposes a hash.
#pragma once

#include <string>
#include <string_view>

#pragma GCC visibility push(hidden)

namespace budcore::core {

// Lower-case hex of SHA-256(data): 64 characters.
std::string sha256_hex(std::string_view data);

// The digest a hash chain starts from (64 zeros).
inline constexpr std::string_view kZeroDigest = "0000000000000000000000000000000000000000000000000000000000000000";

}  // namespace budcore::core

#pragma GCC visibility pop
