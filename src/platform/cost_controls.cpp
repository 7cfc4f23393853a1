#include "budcore/platform/cost_controls.hpp"

#include <string>

#include "budcore/cost/metering.hpp"
#include "budcore/platform/hooks.hpp"

namespace budcore::platform {
namespace {

class BudgetGate : public AdmissionGate {
 public:
  explicit BudgetGate(std::shared_ptr<CostControls> c) : c_(std::move(c)) {}
  std::string_view name() const noexcept override { return "budget"; }
  core::Status admit(const CallContext&, const job::Job& job, GateStage) override { return c_->admit(job); }

 private:
  std::shared_ptr<CostControls> c_;
};

class Meter : public UsageObserver {
 public:
  explicit Meter(std::shared_ptr<CostControls> c) : c_(std::move(c)) {}
  void on_usage(const core::Id& tenant, const core::Id& job_id, std::int64_t,
                const backend::UsageInterval& usage) override {
    c_->meter(tenant, job_id, usage);
  }

 private:
  std::shared_ptr<CostControls> c_;
};

}  // namespace

CostControls::CostControls(backend::Store& store, cost::PriceBook prices, cost::BudgetSet budgets)
    : store_(store), prices_(std::move(prices)), budgets_(std::move(budgets)) {}

std::shared_ptr<CostControls> CostControls::attach(Platform& platform, cost::PriceBook prices, cost::BudgetSet budgets) {
  auto c = std::make_shared<CostControls>(platform.store(), std::move(prices), std::move(budgets));
  platform.add_admission_gate(std::make_shared<BudgetGate>(c));
  platform.add_usage_observer(std::make_shared<Meter>(c));
  return c;
}

core::Status CostControls::admit(const job::Job& job) {
  // The gate runs under the platform's lock and may not ask it the time: a submitted job's
  // created_at (a retried one's updated_at) is the platform's now.
  core::Timestamp now = job.updated_at.value_or(job.created_at.value_or(core::Timestamp{}));
  BUDCORE_TRY_ASSIGN(cost::BudgetDecision d, cost::admit_job(budgets_, store_, prices_, job, now));
  if (!d.allowed) return d.error();
  return {};
}

void CostControls::meter(const core::Id& tenant, const core::Id& job_id, const backend::UsageInterval& usage) {
  if (!(usage.start < usage.end)) return;  // preempted the instant it started: nothing ran
  auto fail = [&](core::Error e) {
    std::lock_guard lock(mu_);
    ++errors_;
    last_error_ = std::move(e);
  };
  auto rec = store_.get_job(tenant, job_id);
  if (!rec) return fail(rec.error());
  cost::UsageInterval u = cost::interval_of(rec->job, usage.start, usage.end);
  if (usage.sharing_mode == "time_slice") u.sharing_mode = cost::SharingMode::TimeSlice;
  if (!usage.nodes.empty()) u.node_name = usage.nodes.front();
  auto st = cost::record_usage(store_, prices_, u);
  if (!st) return fail(st.error());
  std::lock_guard lock(mu_);
  ++metered_;
}

std::int64_t CostControls::metered() const {
  std::lock_guard lock(mu_);
  return metered_;
}
std::int64_t CostControls::metering_errors() const {
  std::lock_guard lock(mu_);
  return errors_;
}
std::optional<core::Error> CostControls::last_metering_error() const {
  std::lock_guard lock(mu_);
  return last_error_;
}

}  // namespace budcore::platform
