#include "cli/cost_common.hpp"

#include <iostream>
#include <nlohmann/json.hpp>

#include "budcore/core/json.hpp"
#include "budcore/cost/estimator.hpp"
#include "cli/command.hpp"
#include "cost/document.hpp"

namespace budcore::cli {

core::Result<cost::PriceBook> load_price_book(const std::string& path) {
  auto text = cost::detail::read_bounded_file(path, "--prices");
  if (!text) return std::move(text).error();
  return cost::PriceBook::from_text(*text);
}

int report_cost_error(const core::Error& error) {
  using core::ErrorCode;
  const bool input = error.code == ErrorCode::Invalid || error.code == ErrorCode::NotFound ||
                     error.code == ErrorCode::Overflow || error.code == ErrorCode::Unsupported;
  nlohmann::ordered_json j;
  j["error"]["code"] = input ? std::string(cost::contract_error_code(error)) : std::string(core::to_string(error.code));
  j["error"]["message"] = error.message;
  j["error"]["path"] = error.field;
  if (!error.value.empty()) j["error"]["value"] = error.value;
  std::cerr << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  return input ? kExitInvalid : kExitInternal;
}

int print_json(const core::Value& value) {
  std::cout << core::to_json(value) << "\n";
  return kExitOk;
}

}  // namespace budcore::cli
