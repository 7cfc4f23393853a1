// budcore::core::ResourceList — resource name -> Quantity, the shape of Kubernetes requests,
// limits and quotas. Names are Kubernetes resource names: "cpu", "memory", "ephemeral-storage",
// extended resources with a domain prefix ("nvidia.com/gpu", "nvidia.com/mig-1g.5gb").
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "budcore/core/quantity.hpp"
#include "budcore/core/result.hpp"

namespace budcore::core {

inline constexpr std::string_view kResourceCpu = "cpu";
inline constexpr std::string_view kResourceMemory = "memory";
inline constexpr std::string_view kResourceEphemeralStorage = "ephemeral-storage";
inline constexpr std::string_view kResourceNvidiaGpu = "nvidia.com/gpu";

// Checks a resource name against the Kubernetes qualified-name grammar ([prefix/]name, prefix a
// DNS subdomain, name <= 63 chars of [A-Za-z0-9._-] starting and ending alphanumeric).
BUDCORE_API Status validate_resource_name(std::string_view name);

class BUDCORE_API ResourceList {
 public:
  using Map = std::map<std::string, Quantity, std::less<>>;

  ResourceList() = default;
  // Parses {"cpu": "500m", "memory": "2Gi"}-style pairs; errors name the resource (field =
  // the resource name, value = the offending text); a name listed twice is an error.
  static Result<ResourceList> parse(std::initializer_list<std::pair<std::string_view, std::string_view>> items);

  Status set(std::string_view name, Quantity q);  // validates the name
  Quantity get(std::string_view name) const noexcept;  // zero when absent
  bool contains(std::string_view name) const noexcept;
  bool empty() const noexcept { return items_.empty(); }
  std::size_t size() const noexcept { return items_.size(); }
  const Map& items() const noexcept { return items_; }

  // Per resource over the union of names (absent = zero), with Quantity's format rules;
  // ErrorCode::Overflow names the resource.
  Result<ResourceList> checked_add(const ResourceList& other) const;
  Result<ResourceList> checked_sub(const ResourceList& other) const;  // may go negative
  Result<ResourceList> checked_mul(std::int64_t factor) const;
  // Every resource of this list is <= the same resource in `capacity` (absent = zero).
  bool fits_in(const ResourceList& capacity) const noexcept;
  // Resources of this list that exceed capacity, with the missing amount (for pending reasons):
  // {cpu: 6500m, memory: 4Gi} over {cpu: 4, memory: 8Gi} -> {cpu: 2500m}.
  ResourceList excess_over(const ResourceList& capacity) const;

  // Same names with equal values; an explicit zero differs from an absent resource.
  friend bool operator==(const ResourceList& a, const ResourceList& b) noexcept;

 private:
  Map items_;
};

}  // namespace budcore::core
