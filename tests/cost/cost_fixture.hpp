// Shared by the cost tests: the contract-5 price book and small helpers.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "budcore/core/json.hpp"
#include "budcore/core/yaml.hpp"
#include "budcore/cost/price_book.hpp"

namespace budcore::testing {

// The price book of CONTRACTS.md section 5, plus a T4 MIG-free extra type and reserved prices.
inline constexpr const char* kContractPrices = R"(currency: USD
gpu_hour:
  nvidia-a100-80gb: {on_demand: "2.49", spot: "1.19"}
  nvidia-t4:        {on_demand: "0.40", spot: "0.16"}
cpu_core_hour:   {on_demand: "0.04", spot: "0.02"}
memory_gib_hour: {on_demand: "0.005", spot: "0.0025"}
storage_gib_month: "0.10"
minimum_billable_seconds: 60
)";

inline cost::PriceBook contract_book() {
  auto b = cost::PriceBook::from_text(kContractPrices);
  EXPECT_TRUE(b) << b.error().describe();
  return *b;
}

inline core::Value json(const std::string& text) {
  auto v = core::parse_json(text);
  EXPECT_TRUE(v) << v.error().describe() << " in " << text;
  return v ? *v : core::Value();
}

}  // namespace budcore::testing
