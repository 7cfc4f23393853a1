// Leader election on a coordination.k8s.io/v1 Lease (companion/leader.hpp).
#include "budcore/companion/leader.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <random>
#include <thread>

#include "budcore/core/json.hpp"
#include "companion/companion_impl.hpp"

namespace budcore::companion {
namespace {

using core::Error;
using core::Value;

std::optional<core::Timestamp> time_at(const Value& spec, const char* key) {
  const std::string& text = str(spec.find(key));
  if (text.empty()) return std::nullopt;
  auto t = core::Timestamp::parse(text);
  if (!t) return std::nullopt;
  return *t;
}

// A DNS-1123 subdomain (Lease names) or label (namespaces): lowercase alphanumerics and '-'
// (and '.' in a subdomain), starting and ending alphanumeric.
bool dns_name(const std::string& s, std::size_t max, bool dots) {
  if (s.empty() || s.size() > max) return false;
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!alnum(s.front()) || !alnum(s.back())) return false;
  for (char c : s)
    if (!alnum(c) && c != '-' && !(dots && c == '.')) return false;
  return true;
}

}  // namespace

core::Status validate(const LeaderElectionConfig& c) {
  if (!dns_name(c.lease_name, 253, true))
    return Error::invalid("leader_election.lease_name", c.lease_name,
                          "a Lease name is a DNS subdomain: lowercase letters, digits, '-' and '.', at most 253");
  if (!c.namespace_.empty() && !dns_name(c.namespace_, 63, false))
    return Error::invalid("leader_election.namespace", c.namespace_,
                          "a namespace is a DNS label: lowercase letters, digits and '-', at most 63");
  if (c.lease_duration < core::Duration::seconds(1) || c.lease_duration.count_ns() % 1'000'000'000 != 0)
    return Error::invalid("leader_election.lease_duration", c.lease_duration.to_string(),
                          "a Lease's leaseDurationSeconds is a whole number of seconds, at least 1");
  if (c.renew_deadline >= c.lease_duration)
    return Error::invalid("leader_election.renew_deadline", c.renew_deadline.to_string(),
                          "must be shorter than lease_duration (" + c.lease_duration.to_string() +
                              "): the leader stops writing before the others may take the Lease");
  if (c.retry_period <= core::Duration::seconds(0))
    return Error::invalid("leader_election.retry_period", c.retry_period.to_string(), "must be positive");
  // client-go: RenewDeadline > JitterFactor (1.2) x RetryPeriod.
  if (c.renew_deadline * 5 <= c.retry_period * 6)
    return Error::invalid("leader_election.renew_deadline", c.renew_deadline.to_string(),
                          "must be longer than 1.2 x retry_period (" + c.retry_period.to_string() +
                              "), or one failed renewal loses the Lease");
  return {};
}

LeaseRecord read_lease(const Value& lease) {
  LeaseRecord r;
  const Value* spec = lease.find("spec");
  if (spec == nullptr || !spec->is_map()) return r;
  r.holder = str(spec->find("holderIdentity"));
  if (const Value* d = spec->find("leaseDurationSeconds"); d != nullptr && d->is_int()) r.lease_duration_seconds = d->as_int();
  if (const Value* t = spec->find("leaseTransitions"); t != nullptr && t->is_int()) r.transitions = t->as_int();
  r.acquire_time = time_at(*spec, "acquireTime");
  r.renew_time = time_at(*spec, "renewTime");
  return r;
}

std::string micro_time(core::Timestamp t) {
  std::int64_t s = t.unix_seconds();
  std::int64_t us = (t.unix_nanos() - s * 1'000'000'000) / 1'000;
  std::string whole = core::Timestamp::from_unix_seconds(s).to_string();  // "...:05Z"
  char frac[24];
  std::snprintf(frac, sizeof frac, ".%06lld", static_cast<long long>(us));
  return whole.substr(0, whole.size() - 1) + frac + "Z";
}

std::string default_identity() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') std::snprintf(host, sizeof host, "budcore");
  char suffix[16];
  std::snprintf(suffix, sizeof suffix, "_%08x", static_cast<unsigned>(std::random_device{}()));
  return std::string(host) + suffix;
}

LeaderElector::LeaderElector(LeaderElectionConfig config, kubernetes::Client& client, std::shared_ptr<core::Clock> clock)
    : config_(std::move(config)), client_(client), clock_(clock ? std::move(clock) : core::system_clock()) {
  if (config_.namespace_.empty()) config_.namespace_ = client_.config().namespace_;
  if (config_.namespace_.empty()) config_.namespace_ = "default";
  if (config_.identity.empty()) config_.identity = default_identity();
}

LeaderElector::~LeaderElector() = default;

bool LeaderElector::is_leader() const {
  std::lock_guard lock(mu_);
  return held_ && clock_->now() < renewed_at_ + config_.renew_deadline;
}

void LeaderElector::became(bool held, core::Timestamp now) {
  std::lock_guard lock(mu_);
  if (held && !held_) term_.fetch_add(1);
  held_ = held;
  if (held) renewed_at_ = now;
}

// The spec this replica writes: a renewal keeps acquireTime and leaseTransitions, a takeover
// starts a new term.
Value LeaderElector::spec_for(const LeaseRecord& prior, core::Timestamp now) const {
  bool renewal = prior.holder == config_.identity && prior.acquire_time.has_value();
  std::int64_t transitions = prior.transitions + ((renewal || (prior.holder.empty() && !prior.acquire_time)) ? 0 : 1);
  return core::Map{{"holderIdentity", config_.identity},
                   {"leaseDurationSeconds", config_.lease_duration.whole_seconds()},
                   {"acquireTime", micro_time(renewal ? *prior.acquire_time : now)},
                   {"renewTime", micro_time(now)},
                   {"leaseTransitions", transitions}};
}

// Held by another replica: it has a holder that is not us, and its renewal is recent by its
// own renewTime or by when we last saw the Lease change.
bool LeaderElector::held_by_another(const LeaseRecord& r, const Value& spec, core::Timestamp now) {
  std::string text = core::to_json(spec);
  if (text != observed_spec_) {
    observed_spec_ = text;
    observed_at_ = now;
  }
  if (r.holder.empty() || r.holder == config_.identity) return false;
  core::Duration d = core::Duration::seconds(r.lease_duration_seconds);
  bool by_spec = r.renew_time.has_value() && now < *r.renew_time + d;
  bool by_observation = now < observed_at_ + d;
  return by_spec || by_observation;
}

core::Result<bool> LeaderElector::acquire_existing(Value lease, core::Timestamp now) {
  LeaseRecord r = read_lease(lease);
  const Value* spec = lease.find("spec");
  if (held_by_another(r, spec != nullptr ? *spec : Value(core::Map{}), now)) {
    became(false, now);
    return false;
  }
  lease.mutable_map().set("spec", spec_for(r, now));
  // The resourceVersion read makes this a compare-and-set: 409 Conflict = someone else won.
  auto put = client_.replace(kubernetes::resources::leases(), config_.namespace_, lease);
  if (!put) {
    if (put.error().code == core::ErrorCode::Conflict) {
      became(false, now);
      return false;
    }
    return std::move(put).error();
  }
  if (const Value* s = put->find("spec")) observed_spec_ = core::to_json(*s);
  observed_at_ = now;
  became(true, now);
  return true;
}

core::Result<bool> LeaderElector::try_acquire_or_renew() {
  core::Timestamp now = clock_->now();
  auto got = client_.get(kubernetes::resources::leases(), config_.namespace_, config_.lease_name);
  if (got) return acquire_existing(std::move(*got), now);
  if (got.error().code != core::ErrorCode::NotFound) return std::move(got).error();
  Value lease = core::Map{{"apiVersion", "coordination.k8s.io/v1"},
                          {"kind", "Lease"},
                          {"metadata", core::Map{{"name", config_.lease_name}, {"namespace", config_.namespace_}}},
                          {"spec", spec_for(LeaseRecord{}, now)}};
  auto made = client_.create(kubernetes::resources::leases(), config_.namespace_, lease);
  if (!made) {
    if (made.error().code == core::ErrorCode::AlreadyExists || made.error().code == core::ErrorCode::Conflict) {
      became(false, now);
      return false;
    }
    return std::move(made).error();
  }
  became(true, now);
  return true;
}

core::Status LeaderElector::release() {
  {
    std::lock_guard lock(mu_);
    if (!held_) return {};
    held_ = false;  // no write passes the gate from here on
  }
  auto got = client_.get(kubernetes::resources::leases(), config_.namespace_, config_.lease_name);
  if (!got) {
    if (got.error().code == core::ErrorCode::NotFound) return {};
    return std::move(got).error();
  }
  LeaseRecord r = read_lease(*got);
  if (r.holder != config_.identity) return {};  // lost meanwhile: nothing of ours to give up
  core::Timestamp now = clock_->now();
  Value spec = core::Map{{"holderIdentity", ""},
                         {"leaseDurationSeconds", 1},
                         {"acquireTime", micro_time(now)},
                         {"renewTime", micro_time(now)},
                         {"leaseTransitions", r.transitions}};
  got->mutable_map().set("spec", std::move(spec));
  auto put = client_.replace(kubernetes::resources::leases(), config_.namespace_, *got);
  if (!put && put.error().code != core::ErrorCode::Conflict) return std::move(put).error();
  return {};
}

void LeaderElector::run(const std::atomic<bool>& stop, const std::function<void(const core::Error&)>& on_error) {
  while (!stop.load()) {
    auto r = try_acquire_or_renew();
    if (!r && on_error) on_error(r.error());
    auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(config_.retry_period.count_ns());
    while (!stop.load() && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  auto st = release();
  if (!st && on_error) on_error(st.error());
}

}  // namespace budcore::companion
