// Private helpers of the companion layer.
#pragma once

#include <string_view>

#include "budcore/core/result.hpp"
#include "budcore/schedule/timeline.hpp"

namespace budcore::companion {

// "22:00-06:00" or "22:00-06:00 Europe/Berlin"; Invalid (field empty, value the text) otherwise.
core::Result<schedule::Window> parse_window_text(std::string_view text);

}  // namespace budcore::companion
