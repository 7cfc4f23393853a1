// Field paths from the JSON pointers core::parse_json names bad input by: parsers of documents
// report "nodes[0].gpus" where the JSON reader said "/nodes/0/gpus".
#pragma once

#include <string>
#include <string_view>

namespace budcore::core {

// "/workloads/0/priority" -> "workloads[0].priority" (RFC 6901 escapes undone), under `base`
// when the document is one part of another ("workload" + "/name" -> "workload.name"). Text that
// is not a pointer (empty, or not starting with '/') is returned as is.
std::string field_path_of_pointer(std::string_view pointer, std::string base = {});

}  // namespace budcore::core
