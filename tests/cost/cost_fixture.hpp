// Shared by the cost tests: the contract-5 price book and small helpers.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "backends/store_fixture.hpp"
#include "budcore/backend/store.hpp"
#include "budcore/core/json.hpp"
#include "budcore/core/time.hpp"
#include "budcore/core/yaml.hpp"
#include "budcore/cost/price_book.hpp"

namespace budcore::testing {

// The price book of docs/cli.md contract 5, plus a T4 MIG-free extra type and reserved prices.
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

inline core::Timestamp at(const char* rfc3339) { return *core::Timestamp::parse(rfc3339); }

// A fresh store per test on each backend the suite is instantiated with ("sqlite_file",
// "postgres": the throwaway server of backends/pg_server.hpp).
class CostStoreTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    target_ = make_target(GetParam());
    if (!target_.skip.empty()) GTEST_SKIP() << target_.skip;
    ASSERT_TRUE(target_.error.empty()) << target_.error;
    auto s = backend::open_store(target_.uri);
    ASSERT_TRUE(s) << s.error().describe();
    store_ = std::move(*s);
  }
  BackendTarget target_;
  std::unique_ptr<backend::Store> store_;
};

}  // namespace budcore::testing
