// Private: the names Kueue's API gives the ClusterQueue policies, one table per field (the
// fields differ in what they allow: withinClusterQueue takes LowerOrNewerEqualPriority,
// reclaimWithinCohort takes Any). The Kueue YAML reader, the scenario reader and the timeline's
// replay read with them; the writers write a value's first name.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "budcore/quota/cluster_queue.hpp"

#pragma GCC visibility push(hidden)  // private to the library: not exported

namespace budcore::quota::detail {

template <class E>
using Names = std::span<const std::pair<std::string_view, E>>;

inline constexpr std::pair<std::string_view, QueueingStrategy> kQueueingStrategies[] = {
    {"BestEffortFIFO", QueueingStrategy::BestEffortFIFO}, {"StrictFIFO", QueueingStrategy::StrictFIFO}};
inline constexpr std::pair<std::string_view, PreemptionPolicy> kWithinClusterQueue[] = {
    {"Never", PreemptionPolicy::Never},
    {"LowerPriority", PreemptionPolicy::LowerPriority},
    {"LowerOrNewerEqualPriority", PreemptionPolicy::LowerOrNewerEqualPriority}};
inline constexpr std::pair<std::string_view, PreemptionPolicy> kReclaimWithinCohort[] = {
    {"Never", PreemptionPolicy::Never}, {"LowerPriority", PreemptionPolicy::LowerPriority}, {"Any", PreemptionPolicy::Any}};
inline constexpr std::pair<std::string_view, BorrowWithinCohortPolicy> kBorrowWithinCohort[] = {
    {"Never", BorrowWithinCohortPolicy::Never}, {"LowerPriority", BorrowWithinCohortPolicy::LowerPriority}};
// Borrow and Preempt are the deprecated v1beta1 spellings of MayStopSearch.
inline constexpr std::pair<std::string_view, FungibilityPolicy> kWhenCanBorrow[] = {
    {"MayStopSearch", FungibilityPolicy::MayStopSearch},
    {"Borrow", FungibilityPolicy::MayStopSearch},
    {"TryNextFlavor", FungibilityPolicy::TryNextFlavor}};
inline constexpr std::pair<std::string_view, FungibilityPolicy> kWhenCanPreempt[] = {
    {"MayStopSearch", FungibilityPolicy::MayStopSearch},
    {"Preempt", FungibilityPolicy::MayStopSearch},
    {"TryNextFlavor", FungibilityPolicy::TryNextFlavor}};
inline constexpr std::pair<std::string_view, FungibilityPreference> kFungibilityPreferences[] = {
    {"BorrowingOverPreemption", FungibilityPreference::BorrowingOverPreemption},
    {"PreemptionOverBorrowing", FungibilityPreference::PreemptionOverBorrowing}};
inline constexpr std::pair<std::string_view, StopPolicy> kStopPolicies[] = {
    {"None", StopPolicy::None}, {"Hold", StopPolicy::Hold}, {"HoldAndDrain", StopPolicy::HoldAndDrain}};

// The value's first name in `names` (its current spelling); empty when the table lacks it.
template <class E>
constexpr std::string_view name_in(Names<E> names, E value) {
  for (const auto& [n, e] : names)
    if (e == value) return n;
  return {};
}

// The value `name` reads as in `names`, if the field allows it.
template <class E>
constexpr std::optional<E> value_named(Names<E> names, std::string_view name) {
  for (const auto& [n, e] : names)
    if (n == name) return e;
  return std::nullopt;
}

// What a reader says of a name the field does not allow: "expected one of A, B, C".
template <class E>
std::string expected_one_of(Names<E> names) {
  std::string out = "expected one of ";
  for (std::size_t i = 0; i < names.size(); ++i) (out += i == 0 ? "" : ", ") += names[i].first;
  return out;
}

// Every preemption policy, whichever field it is allowed in.
inline constexpr std::string_view name_of(PreemptionPolicy p) {
  return p == PreemptionPolicy::Any ? "Any" : name_in<PreemptionPolicy>(kWithinClusterQueue, p);
}
inline constexpr std::string_view name_of(QueueingStrategy s) { return name_in<QueueingStrategy>(kQueueingStrategies, s); }
inline constexpr std::string_view name_of(BorrowWithinCohortPolicy p) {
  return name_in<BorrowWithinCohortPolicy>(kBorrowWithinCohort, p);
}
inline constexpr std::string_view name_of(FungibilityPolicy p) { return name_in<FungibilityPolicy>(kWhenCanBorrow, p); }
inline constexpr std::string_view name_of(FungibilityPreference p) {
  return name_in<FungibilityPreference>(kFungibilityPreferences, p);
}
inline constexpr std::string_view name_of(StopPolicy p) { return name_in<StopPolicy>(kStopPolicies, p); }

}  // namespace budcore::quota::detail

#pragma GCC visibility pop
