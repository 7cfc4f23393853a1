// budcore::platform::SubmitRateLimiter — per-tenant token buckets for submits (the `security`
// config's submits_per_second and submit_burst; docs/security.md "Backpressure").
//
// A bucket holds `burst` tokens and refills at `per_second`; a submit of n jobs takes n. It is
// kept as GCRA (the generic cell rate algorithm): one "theoretical arrival time" per tenant
// instead of a token count and a refill timestamp, so a decision is a hash lookup and a few
// integer operations (benchmarks/security_bench.cpp: well over 10 million decisions a second
// on one core).
//
// Thread-safety: not thread-safe; the Platform calls it under its lock.
#pragma once

#include <cstdint>
#include <vector>

#include "budcore/core/id.hpp"
#include "budcore/export.h"

namespace budcore::platform {

class BUDCORE_API SubmitRateLimiter {
 public:
  static constexpr std::int64_t kMaxBurst = 1'000'000;
  struct Limit {
    double per_second = 0;   // 0.001 .. 1e9
    std::int64_t burst = 0;  // 1 .. kMaxBurst; 0: max(1, ceil(per_second))
  };
  struct Decision {
    bool allowed = true;
    // Denied: nanoseconds until the same request would be allowed; -1 when it never will (n
    // is larger than the burst).
    std::int64_t retry_after_ns = 0;
  };

  // Takes n tokens (n >= 1) of the tenant's bucket at now_ns (nanoseconds on any clock that
  // never goes back), or none when they are not all there.
  Decision acquire(const core::Id& tenant, const Limit& limit, std::int64_t n, std::int64_t now_ns);
  // The same decision on a bucket kept elsewhere (the Store, so that a limit holds across
  // processes): `tat` is its theoretical arrival time (0: a full bucket), moved when allowed.
  static Decision decide(std::int64_t& tat, const Limit& limit, std::int64_t n, std::int64_t now_ns);

  std::size_t tenants() const noexcept { return size_; }

 private:
  // An open-addressing table (linear probing, at most half full): one cache line per decision
  // even with 100,000 tenants, where a node-based map takes two.
  struct Slot {
    core::Id tenant;
    std::int64_t tat = 0;  // theoretical arrival time (ns)
    bool used = false;
  };
  std::int64_t& bucket(const core::Id& tenant, std::int64_t now_ns);
  void grow();

  std::vector<Slot> slots_ = std::vector<Slot>(64);
  std::size_t size_ = 0;
};

}  // namespace budcore::platform
