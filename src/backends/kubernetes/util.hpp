// Small helpers of the Kubernetes backend: base64 (kubeconfig data, Secrets), URL query
// encoding, and a stable hash for rendered objects.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace budcore::kubernetes {

// Standard base64 with padding; whitespace is skipped. nullopt on any other bad character.
std::optional<std::string> decode_base64(std::string_view in);
std::string encode_base64(std::string_view in);

// Percent-encodes everything but RFC 3986 unreserved characters.
std::string url_encode(std::string_view s);

// FNV-1a 64, as 16 hex digits.
std::string fnv1a_hex(std::string_view s);

}  // namespace budcore::kubernetes

#include "budcore/core/result.hpp"
#include "budcore/kubernetes/client.hpp"

#pragma GCC visibility push(hidden)  // private to the library: not exported

namespace budcore::kubernetes {
// An object's metadata field (name, namespace, ...) and its kind; "" where absent or not text.
std::string meta_str(const core::Value& v, std::string_view key);
std::string kind_of(const core::Value& v);

}  // namespace budcore::kubernetes

#pragma GCC visibility pop
