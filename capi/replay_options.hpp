// The options document of the C ABI's replays (budcore_gpu_replay, budcore_serverless_simulate).
#pragma once

#include <span>
#include <string_view>

#include "budcore/core/result.hpp"
#include "budcore/core/value.hpp"

namespace budcore::capi {

// The options text as a JSON object with no key outside `keys`; errors name "options".
core::Result<core::Value> options_object(std::string_view text, std::span<const std::string_view> keys);

// `policies` is a string ("all", "a,b"), left to the layer's own list reader, or a non-empty list
// of single names (not "all", no commas). Errors name `field` or `field[i]`.
core::Status check_policy_list(const core::Value& policies, std::string_view field);

}  // namespace budcore::capi
