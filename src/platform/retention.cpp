// The Platform's retention (docs/store.md "Retention"): the leader compacts the store by the
// config's `retention` every interval of the platform's clock; an admin may ask for it now.
#include "budcore/platform/platform.hpp"
#include "platform/platform_impl.hpp"

namespace budcore::platform {

using core::Error;
using core::ErrorCode;

core::Result<backend::CompactionReport> Platform::Impl::compact_now() {
  const core::Timestamp now = clock->now();
  auto r = store->compact(config.retention->policy, now);
  metrics.count("budcore_retention_compactions_total", {{"outcome", r ? "done" : "failed"}});
  if (!r) return r;
  metrics.count("budcore_retention_removed_total", {{"log", "events"}}, static_cast<double>(r->events_removed));
  metrics.count("budcore_retention_removed_total", {{"log", "audit"}}, static_cast<double>(r->audit_removed));
  metrics.count("budcore_retention_removed_total", {{"log", "usage"}}, static_cast<double>(r->usage_removed));
  next_compaction_ns = (now + config.retention->interval).unix_nanos();
  return r;
}

core::Status Platform::Impl::compact_if_due() {
  if (!config.retention || ha_role == HaRole::Follower) return {};
  const core::Timestamp now = clock->now();
  if (next_compaction_ns == 0) {
    // One interval after the platform opened: opening stays as fast as it was.
    next_compaction_ns = (now + config.retention->interval).unix_nanos();
    return {};
  }
  if (now.unix_nanos() < next_compaction_ns) return {};
  auto r = compact_now();
  if (r) return {};
  // A deposed leader steps down; any other failure is tried again in a minute (compaction is
  // housekeeping: the platform goes on without it).
  if (r.error().code == ErrorCode::NotLeader) return fail_halted(r.error());
  next_compaction_ns = (now + std::min(config.retention->interval, core::Duration::seconds(60))).unix_nanos();
  return {};
}

core::Result<backend::CompactionReport> Platform::compact(const CallContext& caller) {
  std::lock_guard lock(impl_->mu);
  BUDCORE_TRY(impl_->guard(caller, "compact", "store"));
  if (!impl_->config.retention)
    return Error::invalid("retention", "", "the platform's config has no retention section: nothing may be removed");
  if (impl_->ha_role == Impl::HaRole::Follower) {
    Error e = Error::make(ErrorCode::NotLeader, "compaction is the leader's: this replica follows", "compact");
    e.value = std::to_string(impl_->ha_epoch);
    return e;
  }
  auto r = impl_->compact_now();
  if (!r && r.error().code == ErrorCode::NotLeader) return impl_->fail_halted(r.error());
  return r;
}

}  // namespace budcore::platform
