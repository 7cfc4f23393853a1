// Field readers over one map of a config document (platform config, `security`): every error
// names the path of the field. Internal to the platform layer.
#pragma once

#include <cstdio>

#include <cmath>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/core/json.hpp"
#include "budcore/core/quantity.hpp"
#include "budcore/core/result.hpp"
#include "budcore/core/time.hpp"
#include "budcore/core/value.hpp"
#include "budcore/platform/config.hpp"  // not forward-declared: a public class must not be seen hidden first
#include "core/field_reader.hpp"

#pragma GCC visibility push(hidden)

namespace budcore::platform::detail {

using core::Error;
using core::Value;

inline constexpr std::int64_t kMaxSeconds = std::int64_t{100} * 365 * 86'400;

// Field readers over one map of the document; every error is prefixed with the map's path.
class Section {
 public:
  Section(const Value& v, std::string path) : path_(std::move(path)) {
    static const core::Map kEmpty;
    map_ = v.is_map() ? &v.as_map() : &kEmpty;
  }
  static core::Result<Section> of(const Value& v, std::string path) {
    if (!v.is_map() && !v.is_null())
      return Error::invalid(path, core::to_json(v), "must be a map, not " + std::string(core::to_string(v.kind())));
    return Section(v, std::move(path));
  }
  core::Status known(std::initializer_list<std::string_view> keys) const {
    std::vector<std::string_view> k(keys);
    return at(core::detail::Reader(*map_).reject_unknown(k));
  }
  const Value* get(std::string_view key) const {
    const Value* v = map_->find(key);
    return v == nullptr || v->is_null() ? nullptr : v;
  }
  std::string path(std::string_view key) const { return core::join_path(path_, key); }
  // Where an absent key would mean "no rule" (security), a null is refused rather than read as
  // absent: `max_gpus_per_job: ~` must not quietly lift the limit.
  core::Status no_nulls() const {
    for (const auto& [k, v] : *map_)
      if (v.is_null())
        return Error::invalid(path(k), "null", "a null here would silently mean no rule: give a value or omit the key");
    return {};
  }
  core::Status at(core::Status st) const {
    if (!st) {
      core::Error e = st.error();
      if (!path_.empty()) e.at(path_);
      return e;
    }
    return {};
  }
  template <class T>
  core::Result<T> at(core::Result<T> r) const {
    if (!r) {
      core::Error e = r.error();
      if (!path_.empty()) e.at(path_);
      return e;
    }
    return r;
  }
  core::Status string(std::string_view key, std::string& out) const {
    BUDCORE_TRY_ASSIGN(auto v, at(core::detail::Reader(*map_).string(key)));
    if (v) out = *v;
    return {};
  }
  core::Status boolean(std::string_view key, bool& out) const {
    BUDCORE_TRY_ASSIGN(auto v, at(core::detail::Reader(*map_).boolean(key)));
    if (v) out = *v;
    return {};
  }
  core::Status integer(std::string_view key, std::int64_t& out, std::int64_t lo, std::int64_t hi) const {
    BUDCORE_TRY_ASSIGN(auto v, at(core::detail::Reader(*map_).integer(key)));
    if (!v) return {};
    if (*v < lo || *v > hi)
      return Error::invalid(path(key), std::to_string(*v),
                            "must be between " + std::to_string(lo) + " and " + std::to_string(hi));
    out = *v;
    return {};
  }
  core::Status number(std::string_view key, double& out, double lo, double hi) const {
    const Value* v = get(key);
    if (v == nullptr) return {};
    if (!v->is_number()) return Error::invalid(path(key), core::to_json(*v), "must be a number");
    double d = v->as_float();
    if (!std::isfinite(d) || d < lo || d > hi)
      return Error::invalid(path(key), core::to_json(*v),
                            "must be between " + core::format_json_float(lo) + " and " + core::format_json_float(hi));
    out = d;
    return {};
  }
  core::Status seconds(std::string_view key, core::Duration& out, double lo,
                       double hi = static_cast<double>(kMaxSeconds)) const {
    const Value* v = get(key);
    if (v == nullptr) return {};
    if (!v->is_number()) return Error::invalid(path(key), core::to_json(*v), "must be a number of seconds");
    const double s = v->as_float();
    if (!std::isfinite(s) || s < lo || s > hi) {
      auto text = [](double d) {
        char b[32];
        std::snprintf(b, sizeof b, d == std::floor(d) ? "%.0f" : "%g", d);
        return std::string(b);
      };
      const std::string range = text(lo) + " and " + text(hi);
      const std::string shown = std::isfinite(s) ? core::to_json(*v) : std::string(std::isnan(s) ? "NaN" : "infinity");
      return Error::invalid(path(key), shown, "must be between " + range + " seconds");
    }
    out = core::Duration::nanoseconds(static_cast<std::int64_t>(std::llround(s * 1e9)));
    return {};
  }
  core::Status quantity(std::string_view key, std::optional<core::Quantity>& out) const {
    BUDCORE_TRY_ASSIGN(auto v, at(core::detail::Reader(*map_).quantity(key, false)));
    if (v) out = *v;
    return {};
  }

 private:
  const core::Map* map_;
  std::string path_;
};

// security: {...} (security_config.cpp).
core::Status read_security(const core::Value& v, PlatformConfig& c);
// A URL of the platform's own (a webhook) resolves its secret:// references in the platform's
// namespace: none may name what reads as a tenant's secret.
core::Status check_platform_secret_refs(std::string_view url, std::string_view field);

}  // namespace budcore::platform::detail

#pragma GCC visibility pop
