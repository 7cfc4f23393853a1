// One JSON string appended to text being written directly (not through a Value): the writers
// of large documents (job documents, plans, the template tester's answers) build their text
// this way.
#pragma once

#include <string>
#include <string_view>

#include "budcore/export.h"

namespace budcore::core {

// Appends `text` as one JSON string: quoted, escaped, malformed UTF-8 written as U+FFFD (as
// to_json does), non-ASCII escaped as \uXXXX with ensure_ascii.
BUDCORE_API void append_json_string(std::string& out, std::string_view text, bool ensure_ascii = false);

}  // namespace budcore::core
