// Shared by the `budcore cost` commands: price book loading, JSON output, and errors reported
// with contract 5's codes (unknown_price, missing_field, invalid_value).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "budcore/core/error.hpp"
#include "budcore/core/result.hpp"
#include "budcore/core/value.hpp"
#include "budcore/cost/price_book.hpp"

#pragma GCC visibility push(hidden)  // private to the library: not exported

namespace budcore::cli {

core::Result<cost::PriceBook> load_price_book(const std::string& path);

// {"error": {"code", "message", "path"[, "value"]}} on stderr. Input problems (Invalid,
// NotFound, Overflow, Unsupported) carry the contract-5 code and exit 2; anything else (Io,
// Internal) keeps the library's code and exits 1.
int report_cost_error(const core::Error& error);

// Compact JSON and a newline on stdout; returns kExitOk.
int print_json(const core::Value& value);

// `cost report`, `cost rollup`, `cost forecast` and `cost budget ...` (cmd_cost_report.cpp).
void register_cost_report_commands(CLI::App& cost);

}  // namespace budcore::cli

#pragma GCC visibility pop
