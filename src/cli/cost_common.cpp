#include "cli/cost_common.hpp"

#include <iostream>

#include "budcore/core/json.hpp"
#include "budcore/cost/estimator.hpp"
#include "cli/command.hpp"
#include "budcore/cost/metering.hpp"

namespace budcore::cli {

core::Result<cost::PriceBook> load_price_book(const std::string& path) {
  auto text = read_file_arg(path, "--prices", cost::kMaxDocumentBytes);
  if (!text) return std::move(text).error();
  return cost::PriceBook::from_text(*text);
}

int report_cost_error(const core::Error& error) {
  using core::ErrorCode;
  const bool input = error.code == ErrorCode::Invalid || error.code == ErrorCode::NotFound ||
                     error.code == ErrorCode::Overflow || error.code == ErrorCode::Unsupported;
  print_error_json(core::Value::map(
      {{"error", error_json(error, input ? std::string(cost::contract_error_code(error)) : std::string())}}));
  return input ? kExitInvalid : kExitInternal;
}

int print_json(const core::Value& value) {
  std::cout << core::to_json(value) << "\n";
  return kExitOk;
}

}  // namespace budcore::cli
