// Quantity and Money hot paths: parse, canonical formatting and price arithmetic.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "budcore/core/money.hpp"
#include "budcore/core/quantity.hpp"
#include "budcore/core/time.hpp"

namespace {

using budcore::core::Duration;
using budcore::core::Money;
using budcore::core::Quantity;

// A representative mix: CPU millicores, memory in binary units, GPU counts, exponents, fractions.
const std::vector<std::string>& quantity_mix() {
  static const std::vector<std::string> mix = {"500m", "2",     "1Gi",  "1536Mi", "100M",   "1e3",  "0.5",
                                               "4",    "250m",  "16Gi", "1.5",    "7Ei",    "80n",  "1000Ki",
                                               "0",    "-1.5G", "3Ti",  "12E",    "1.2e-3", "8"};
  return mix;
}

void BM_QuantityParse(benchmark::State& state) {
  const auto& mix = quantity_mix();
  std::size_t i = 0;
  for (auto _ : state) {
    auto q = Quantity::parse(mix[i++ % mix.size()]);
    benchmark::DoNotOptimize(q);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_QuantityParse);

void BM_QuantityToString(benchmark::State& state) {
  std::vector<Quantity> values;
  for (const auto& s : quantity_mix()) values.push_back(Quantity::parse(s).value());
  std::size_t i = 0;
  for (auto _ : state) {
    std::string s = values[i++ % values.size()].to_string();
    benchmark::DoNotOptimize(s);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_QuantityToString);

void BM_QuantityAdd(benchmark::State& state) {
  const Quantity a = Quantity::parse("1536Mi").value();
  const Quantity b = Quantity::parse("500m").value();
  for (auto _ : state) {
    auto r = a.checked_add(b);
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_QuantityAdd);

void BM_MoneyParse(benchmark::State& state) {
  const std::vector<std::string> mix = {"0.00097", "12.34", "-1500.5", "3.492", "0.000000000001", "123456789.123456"};
  std::size_t i = 0;
  for (auto _ : state) {
    auto m = Money::parse(mix[i++ % mix.size()], "USD");
    benchmark::DoNotOptimize(m);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_MoneyParse);

void BM_MoneyFormat(benchmark::State& state) {
  const Money m = Money::parse("1234.000970", "USD").value();
  for (auto _ : state) {
    std::string s = m.to_string();
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_MoneyFormat);

void BM_MoneyMulInt(benchmark::State& state) {
  const Money m = Money::parse("0.00097", "USD").value();
  for (auto _ : state) {
    auto r = m.checked_mul(std::int64_t{3600});
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_MoneyMulInt);

void BM_MoneyMulQuantity(benchmark::State& state) {
  const Money m = Money::parse("0.00097", "USD").value();
  const Quantity q = Quantity::parse("1500m").value();
  for (auto _ : state) {
    auto r = m.checked_mul(q);
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_MoneyMulQuantity);

void BM_MoneyMulDuration(benchmark::State& state) {
  const Money m = Money::parse("0.00097", "USD").value();
  const Duration d = Duration::seconds(3600);
  for (auto _ : state) {
    auto r = m.checked_mul(d);
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_MoneyMulDuration);

}  // namespace
