// YAML <-> Value with the YAML 1.2 core schema: plain scalars resolve to null (null, Null, ~,
// empty), bool (true/false in any of its three cases), int (decimal, 0x, 0o), float (incl.
// .inf/.nan) or else string; quoted and "!!str" scalars are always strings. Mapping order is
// kept; keys must be scalars and stay as written; duplicate keys: the last value wins (an error
// with ParseOptions::unique_keys). Anchors
// and aliases work (an alias shares its anchor's collection); documents whose aliases expand to
// more than a million values or to more text than the input limit (max_input_bytes()), nested
// deeper than 500 levels, or longer than the input limit are rejected. Integers outside int64
// are errors (quote them to keep them as strings).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "budcore/core/json.hpp"
#include "budcore/core/result.hpp"
#include "budcore/core/value.hpp"

namespace budcore::core {

// One document; an empty input is null; a stream with several documents is an error.
// Errors: ErrorCode::Invalid, "invalid YAML at line L, column C: ...", field = node path.
BUDCORE_API Result<Value> parse_yaml(std::string_view text);
BUDCORE_API Result<Value> parse_yaml(std::string_view text, const ParseOptions& options);
// Every document of a multi-document stream ("---" separated), empty (null) documents skipped.
BUDCORE_API Result<std::vector<Value>> parse_yaml_all(std::string_view text);
// Block-style YAML that parse_yaml reads back to an equal Value (strings that would resolve
// to another type, also under YAML 1.1 readers, are double-quoted; multi-line text uses "|").
// A Value built in code that nests deeper than kMaxValueDepth throws core::DepthExceeded.
BUDCORE_API std::string to_yaml(const Value& value);

// Reads a file as JSON when it starts with '{' or '[' (after whitespace), YAML otherwise.
// `path` "-" reads standard input. Errors: Io (unreadable), Invalid (bad syntax, or larger than
// max_input_bytes(): read_input of core/limits.hpp reads it).
// max_bytes: the largest file accepted (0: max_input_bytes()); field: what named the file, the
// field of an error reading it.
BUDCORE_API Result<Value> load_document_file(const std::string& path, std::size_t max_bytes = 0,
                                             std::string_view field = "path");
// Parses text the same way load_document_file does.
BUDCORE_API Result<Value> parse_document(std::string_view text);
BUDCORE_API Result<Value> parse_document(std::string_view text, const ParseOptions& options);

}  // namespace budcore::core
