// libFuzzer: the cost layer's document readers. The input is read as a price book (which must
// write out and read back equal), as a contract-5 SPEC against a fixed price book, as a budget
// document and as usage text. Nothing may crash; every error must say what is wrong.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "budcore/core/json.hpp"
#include "budcore/cost/budget.hpp"
#include "budcore/cost/estimator.hpp"
#include "budcore/cost/metering.hpp"
#include "budcore/cost/price_book.hpp"
#include "cost/document.hpp"

namespace {

const budcore::cost::PriceBook& fixed_book() {
  static const budcore::cost::PriceBook book = *budcore::cost::PriceBook::from_text(R"(currency: USD
gpu_hour:
  nvidia-a100-80gb: {on_demand: "2.49", spot: "1.19"}
  nvidia-t4: {on_demand: "0.40", spot: "0.16", memory_gib: 16}
cpu_core_hour: {on_demand: "0.04", spot: "0.02"}
memory_gib_hour: {on_demand: "0.005", spot: "0.0025"}
storage_gib_month: "0.10"
minimum_billable_seconds: 60
conversions: {EUR: "0.92"}
)");
  return book;
}

template <class R>
void must_explain(const R& r) {
  if (!r && r.error().message.empty()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace budcore;
  std::string_view text(reinterpret_cast<const char*>(data), size);

  auto book = cost::PriceBook::from_text(text);
  must_explain(book);
  if (book) {
    auto again = cost::PriceBook::from_value(book->to_value());
    if (!again || !(*again == *book)) std::abort();
    auto job = core::parse_json(R"({"job_type": "service", "gpu_type": "nvidia-t4", "gpu_count": 1})");
    must_explain(cost::estimate_document(*book, *job));
  }

  auto spec = cost::detail::parse_bounded_document(text, "spec");
  if (spec) {
    auto e = cost::estimate_document(fixed_book(), *spec);
    must_explain(e);
    if (e) core::to_json(cost::to_value(*e));
    must_explain(cost::compare_tiers(fixed_book(), *spec));
    must_explain(cost::BudgetSet::from_value(*spec));
    auto interval = cost::read_interval(*spec);
    must_explain(interval);
    if (interval) must_explain(cost::meter(fixed_book(), *interval));
  }
  must_explain(cost::parse_usage_text(text, &fixed_book()));
  return 0;
}
