// CLI subcommands register themselves here, one file per command group (cmd_<group>.cpp),
// so adding a command never touches main.cpp.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "budcore/core/error.hpp"
#include "budcore/core/id.hpp"
#include "budcore/core/result.hpp"
#include "budcore/core/value.hpp"

#pragma GCC visibility push(hidden)  // private to the library: not exported

namespace budcore::cli {

// Exit codes of docs/cli.md's contracts: 0 success, 2 invalid input, 1 internal failure.
inline constexpr int kExitOk = 0;
inline constexpr int kExitInternal = 1;
inline constexpr int kExitInvalid = 2;

using Registrar = std::function<void(CLI::App& root)>;

// Called from a static object in each cmd_*.cpp.
bool register_commands(Registrar registrar);
const std::vector<Registrar>& registrars();

// Writes {"error": {"code": ..., "message": ..., "path": ...}} to stderr and returns the exit
// code for the error (2 for invalid input, 1 otherwise). An error with others (every problem of
// a job document) is written as report_errors writes its all_problems().
int report_error(const core::Error& error);
// Every problem of one document at once (one or more): {"error": <the first>, "errors": [every
// one]} (the shape of report_error plus the list), the first deciding the exit code as it would
// in report_error.
int report_errors(const std::vector<core::Error>& errors);
// {"code", "message", "path", "value"?, "retry_after_ms"?} of an error clamped for display (code:
// the error's unless given), and the one writer of error documents to stderr.
core::Value error_json(const core::Error& error, std::string code = {});
// A UUID argument (--tenant, ID, --project): core::Id::parse_field, the one UUID reader.
core::Result<core::Id> parse_uuid(const std::string& text, const char* field);
void print_error_json(const core::Value& doc);
// An argument-parser failure (missing, unknown or malformed option) as an `invalid` error whose
// path is the option it names.
core::Error usage_error(std::string_view parser_message);
// The first word of argv that is not a command of its group ("budcore tempalte eval"), as an
// invalid error with a did-you-mean; nullopt when every word up to a leaf command is known.
std::optional<core::Error> unknown_command(const CLI::App& app, int argc, char** argv);

// The whole input file named on the command line ("-": stdin) by the argument or option
// `field` ("FILE", "--prices"), capped at max_input_bytes() (or `max`), read by
// core::read_input. A file that cannot be read is the caller's input being wrong, so core's
// Io error is reported as invalid input (exit 2) with the same message, path (= field) and
// value (= the file); code `io` stays for internal failures (exit 1).
core::Result<std::string> read_file_arg(const std::string& file, std::string_view field, std::size_t max = 0);
// The same, parsed as one JSON or YAML document (core::load_document_file).
core::Result<core::Value> load_document_arg(const std::string& file, std::string_view field, std::size_t max = 0);
// The same, with a member given twice refused rather than resolved to its last value: a document
// that decides something (a job, a batch) means one thing on every path.
core::Result<core::Value> load_strict_document_arg(const std::string& file, std::string_view field, std::size_t max = 0);
// Invalid when the idempotency-key option `option` of `cmd` was given empty: an empty key would
// silently be no key, and each retry would make a new job.
core::Status check_key_option(const CLI::App& cmd, const std::string& option, const std::string& key);
// A library loader's error for a file the caller named with `field`: an Io error (the file
// cannot be read) becomes that same invalid-input error, named by `field` (kept when `field` is
// empty: a file named inside a document, such as a config's cost.prices); others pass as is.
core::Error input_file_error(core::Error e, std::string_view field);

// Writes `text` to the file named by the option `field` ("--html"): Io "cannot write FILE".
core::Status write_file_arg(const std::string& file, std::string_view text, std::string_view field);

// A subcommand's callback stores its exit code here; main returns it.
int& exit_code();

}  // namespace budcore::cli

#pragma GCC visibility pop
