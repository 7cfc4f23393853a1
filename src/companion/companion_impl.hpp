// Private helpers of the companion layer.
#pragma once

#include <string>
#include <string_view>

#include "budcore/core/result.hpp"
#include "budcore/core/value.hpp"
#include "budcore/schedule/timeline.hpp"

namespace budcore::companion {

// "22:00-06:00" or "22:00-06:00 Europe/Berlin"; Invalid (field empty, value the text) otherwise.
core::Result<schedule::Window> parse_window_text(std::string_view text);

// The text a field of an object holds; "" where the field is absent or not text.
inline const std::string& str(const core::Value* v) {
  static const std::string empty;
  return v != nullptr && v->is_string() ? v->as_string() : empty;
}

}  // namespace budcore::companion
