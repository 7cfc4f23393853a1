// ResourceList: resource name -> Quantity with Kubernetes resource-name validation.
#include "budcore/core/resource_list.hpp"

#include <string>

namespace budcore::core {
namespace {

constexpr std::size_t kNameMaxLength = 63;        // label-key name part
constexpr std::size_t kSubdomainMaxLength = 253;  // DNS-1123 subdomain

bool is_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }
bool is_lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]
bool is_name_part(std::string_view s) {
  if (s.empty() || !is_alnum(s.front()) || !is_alnum(s.back())) return false;
  for (char c : s) {
    if (!is_alnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

// DNS-1123 label: [a-z0-9]([-a-z0-9]*[a-z0-9])?
bool is_dns_label(std::string_view s) {
  if (s.empty() || !is_lower_alnum(s.front()) || !is_lower_alnum(s.back())) return false;
  for (char c : s) {
    if (!is_lower_alnum(c) && c != '-') return false;
  }
  return true;
}

// DNS-1123 subdomain: labels joined by '.', at most 253 characters.
bool is_dns_subdomain(std::string_view s) {
  if (s.empty() || s.size() > kSubdomainMaxLength) return false;
  while (true) {
    const std::size_t dot = s.find('.');
    if (!is_dns_label(s.substr(0, dot))) return false;
    if (dot == std::string_view::npos) return true;
    s.remove_prefix(dot + 1);
  }
}

Error bad_name(std::string_view name, std::string why) {
  return Error::invalid(std::string(name), std::string(name), "invalid resource name: " + std::move(why));
}

}  // namespace

Status validate_resource_name(std::string_view name) {
  if (name.empty()) return bad_name(name, "must not be empty");
  std::string_view part = name;
  const std::size_t slash = name.find('/');
  if (slash != std::string_view::npos) {
    const std::string_view prefix = name.substr(0, slash);
    part = name.substr(slash + 1);
    if (part.find('/') != std::string_view::npos) {
      return bad_name(name, "at most one '/' may separate a DNS prefix from the name (e.g. \"nvidia.com/gpu\")");
    }
    if (prefix.empty()) return bad_name(name, "the prefix before '/' must not be empty");
    if (!is_dns_subdomain(prefix)) {
      return bad_name(name, "the prefix must be a DNS-1123 subdomain of at most 253 characters "
                            "(lower-case alphanumerics, '-' and '.', e.g. \"nvidia.com\")");
    }
  }
  if (part.empty()) return bad_name(name, "the name part must not be empty");
  if (part.size() > kNameMaxLength) return bad_name(name, "the name part must be at most 63 characters");
  if (!is_name_part(part)) {
    return bad_name(name, "the name part must consist of alphanumerics, '-', '_' or '.', "
                          "and start and end with an alphanumeric character");
  }
  return {};
}

Result<ResourceList> ResourceList::parse(
    std::initializer_list<std::pair<std::string_view, std::string_view>> items) {
  ResourceList out;
  for (const auto& [name, text] : items) {
    BUDCORE_TRY(validate_resource_name(name));
    if (out.contains(name)) {
      return Error::invalid(std::string(name), std::string(text), "resource is listed more than once");
    }
    auto q = Quantity::parse(text);
    if (!q) {
      Error e = std::move(q).error();
      e.field = std::string(name);
      return e;
    }
    out.items_.emplace(std::string(name), *q);
  }
  return out;
}

Status ResourceList::set(std::string_view name, Quantity q) {
  BUDCORE_TRY(validate_resource_name(name));
  auto it = items_.find(name);
  if (it == items_.end()) {
    items_.emplace(std::string(name), q);
  } else {
    it->second = q;
  }
  return {};
}

Quantity ResourceList::get(std::string_view name) const noexcept {
  auto it = items_.find(name);
  return it == items_.end() ? Quantity{} : it->second;
}

bool ResourceList::contains(std::string_view name) const noexcept { return items_.find(name) != items_.end(); }

namespace {
// Applies `op` to every resource of either list (absent = zero); the first failure names it.
template <class Op>
Result<ResourceList::Map> combine(const ResourceList::Map& a, const ResourceList::Map& b, Op op) {
  ResourceList::Map out = a;
  for (auto& [name, q] : out) {
    auto it = b.find(name);
    auto r = op(q, it == b.end() ? Quantity{} : it->second);
    if (!r) {
      Error e = std::move(r).error();
      e.field = name;
      return e;
    }
    q = *r;
  }
  for (const auto& [name, q] : b) {
    if (a.find(name) != a.end()) continue;
    auto r = op(Quantity{}, q);
    if (!r) {
      Error e = std::move(r).error();
      e.field = name;
      return e;
    }
    out.emplace(name, *r);
  }
  return out;
}
}  // namespace

Result<ResourceList> ResourceList::checked_add(const ResourceList& other) const {
  BUDCORE_TRY_ASSIGN(Map sum, combine(items_, other.items_, [](const Quantity& x, const Quantity& y) {
                       return x.checked_add(y);
                     }));
  ResourceList out;
  out.items_ = std::move(sum);
  return out;
}

Result<ResourceList> ResourceList::checked_sub(const ResourceList& other) const {
  BUDCORE_TRY_ASSIGN(Map diff, combine(items_, other.items_, [](const Quantity& x, const Quantity& y) {
                       return x.checked_sub(y);
                     }));
  ResourceList out;
  out.items_ = std::move(diff);
  return out;
}

Result<ResourceList> ResourceList::checked_mul(std::int64_t factor) const {
  ResourceList out = *this;
  for (auto& [name, q] : out.items_) {
    auto r = q.checked_mul(factor);
    if (!r) {
      Error e = std::move(r).error();
      e.field = name;
      return e;
    }
    q = *r;
  }
  return out;
}

bool ResourceList::fits_in(const ResourceList& capacity) const noexcept {
  for (const auto& [name, q] : items_) {
    if (q > capacity.get(name)) return false;
  }
  return true;
}

ResourceList ResourceList::excess_over(const ResourceList& capacity) const {
  ResourceList out;
  for (const auto& [name, q] : items_) {
    const Quantity cap = capacity.get(name);
    if (q <= cap) continue;
    // q > cap, so the difference is positive; it can only overflow at the very ends of the
    // range, where the largest representable amount is the honest answer.
    auto diff = q.checked_sub(cap);
    out.items_.emplace(name, diff ? *diff : Quantity::from_nano(kInt128Max, q.format()));
  }
  return out;
}

bool operator==(const ResourceList& a, const ResourceList& b) noexcept { return a.items_ == b.items_; }

}  // namespace budcore::core
