// libFuzzer: tenant isolation and RBAC under random call sequences by random principals
// (docs/security.md). Each input is a program: every two bytes pick an operation, a tenant, a
// principal, a project and a job. A model of the role bindings says what each call may do; the
// target aborts when a call succeeds that the model refuses, is refused for a reason other than
// RBAC when the model allows it, shows one tenant anything of another (a job, an event, an
// audit entry, a schedule entry or reason, an id in an error message), when a caller-chosen id,
// a platform-owned field or key, or another tenant's secret is accepted, when a tenant's event
// or audit numbers have gaps, or when the audit chains do not verify at the end.
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <stdlib.h>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "budcore/backend/store_json.hpp"
#include "budcore/core/json.hpp"
#include "budcore/platform/platform.hpp"
#include "budcore/platform/platform_json.hpp"
#include "budcore/schedule/estimate.hpp"

namespace {

using namespace budcore;
using platform::Role;

constexpr int kTenants = 3, kProjects = 2, kPrincipals = 4;

core::Id tenant_id(int t) { return core::Id::parse("00000000-0000-4000-8000-00000000010" + std::to_string(t)).value(); }
core::Id project_id(int p) { return core::Id::parse("00000000-0000-4000-8000-00000000020" + std::to_string(p)).value(); }
std::string principal(int i) { return "user:p" + std::to_string(i); }

void check(bool ok) {
  if (!ok) std::abort();
}

struct Binding {
  Role role;
  std::optional<int> project;
};

struct Model {
  std::map<std::pair<int, int>, std::vector<Binding>> bindings;  // (tenant, principal) -> bindings
  struct Job {
    core::Id id;
    int tenant;
    int project;
  };
  std::vector<Job> jobs;
  // Ids a tenant's callers sent themselves (a get/cancel/preempt of another tenant's job): the
  // tenant's audit log records the refused request with the id it named, which tells it nothing
  // it did not already know, and a missing id is refused the same way.
  std::set<std::pair<int, core::Id>> named;

  std::optional<Role> role(int t, int p, std::optional<int> project) const {
    std::optional<Role> best;
    auto it = bindings.find({t, p});
    if (it == bindings.end()) return best;
    for (const auto& b : it->second)
      if (!b.project || (project && *b.project == *project))
        if (!best || b.role > *best) best = b.role;
    return best;
  }
  bool may(int t, int p, std::optional<int> project, Role needed) const {
    auto r = role(t, p, project);
    return r && *r >= needed;
  }
  bool owns(int t, const std::string& id) const {
    for (const auto& j : jobs)
      if (j.id.to_string() == id) return j.tenant == t;
    return false;
  }
};

// Nothing in `text` names another tenant or a job of another tenant, except ids the tenant's
// callers sent themselves (an error or an audit entry may quote them back).
void no_foreign_ids(const Model& m, int t, const std::string& text) {
  for (int u = 0; u < kTenants; ++u)
    if (u != t) check(text.find(tenant_id(u).to_string()) == std::string::npos);
  for (const auto& j : m.jobs)
    if (j.tenant != t && !m.named.contains({t, j.id})) check(text.find(j.id.to_string()) == std::string::npos);
}

// A call that the model refuses must be a Security refusal; one it allows must not be.
template <class R>
void expect(const R& r, bool allowed) {
  if (allowed) {
    if (!r) check(r.error().code != core::ErrorCode::Security && r.error().code != core::ErrorCode::Internal);
  } else {
    check(!r && r.error().code == core::ErrorCode::Security);
  }
}

// Tenant t's own secret "k", in the environment the env provider reads (its variable carries
// the tenant's hex digits).
std::string hex_of(int t) {
  std::string h;
  for (char c : tenant_id(t).to_string())
    if (c != '-') h += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return h;
}
const bool secrets_planted = [] {
  for (int t = 0; t < kTenants; ++t)
    ::setenv(("BUDCORE_SECRET_" + hex_of(t) + "_K").c_str(), ("value-of-tenant-" + std::to_string(t)).c_str(), 1);
  return true;
}();

// A tenant's numbers (events, audit entries) run 1, 2, ... without gaps.
template <class Items>
void gapless(const Items& items) {
  for (std::size_t i = 0; i < items.size(); ++i) check(items[i].seq == static_cast<std::int64_t>(i + 1));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 120) return 0;
  platform::PlatformConfig config = platform::PlatformConfig::embedded("/nonexistent");
  config.store_uri = "sqlite::memory:";
  config.security.rbac = true;
  config.security.platform_admins = {"user:root"};
  auto opened = platform::Platform::open(config);
  check(opened.has_value());
  platform::Platform& p = **opened;
  Model m;

  for (std::size_t i = 0; i + 1 < size; i += 2) {
    const std::uint8_t a = data[i], b = data[i + 1];
    const int op = a % 13, t = (a / 13) % kTenants, who = b % kPrincipals, proj = (b / 4) % kProjects;
    const auto caller = platform::CallContext::for_tenant(tenant_id(t), principal(who));
    const Model::Job* job = m.jobs.empty() ? nullptr : &m.jobs[(b / 8) % m.jobs.size()];
    switch (op) {
      case 0: {  // the root grants a role (a project role or a tenant-wide one)
        const Role role = static_cast<Role>((b / 8) % 4);
        std::optional<int> on;
        if (role < Role::TenantAdmin && (b & 0x80)) on = proj;
        platform::RoleBinding rb{principal(who), role, on ? std::optional(project_id(*on)) : std::nullopt};
        auto r = p.bind_role(platform::CallContext::for_tenant(tenant_id(t), "user:root"), rb);
        if (r) m.bindings[{t, who}].push_back(Binding{role, on});
        else check(r.error().code == core::ErrorCode::AlreadyExists);
        break;
      }
      case 1: {  // submit in a project
        job::Job j;
        j.name = "f";
        j.project_id = project_id(proj);
        j.estimated_duration_seconds = 60;
        auto r = p.submit(caller, j);
        expect(r, m.may(t, who, proj, Role::Editor));
        if (r) m.jobs.push_back({r->record.job.id, t, proj});
        else no_foreign_ids(m, t, r.error().describe());
        break;
      }
      case 2:
      case 3:
      case 4: {  // get, cancel, preempt a job (maybe another tenant's)
        if (job == nullptr) break;
        const Role needed = op == 2 ? Role::Viewer : op == 3 ? Role::Editor : Role::Admin;
        m.named.insert({t, job->id});
        auto r = op == 2 ? p.get_job(caller, job->id) : op == 3 ? p.cancel_job(caller, job->id) : p.preempt_job(caller, job->id);
        if (job->tenant != t) {
          check(!r && (r.error().code == core::ErrorCode::NotFound || r.error().code == core::ErrorCode::Security));
        } else {
          expect(r, m.may(t, who, job->project, needed));
        }
        if (!r) no_foreign_ids(m, t, r.error().describe());
        else check(r->job.tenant_id == tenant_id(t));
        break;
      }
      case 5: {  // list, with or without a project filter
        backend::JobFilter f;
        if (b & 0x80) f.project_id = project_id(proj);
        auto r = p.list_jobs(caller, f);
        expect(r, m.may(t, who, f.project_id ? std::optional(proj) : std::nullopt, Role::Viewer));
        if (r) {
          for (const auto& s : r->items) check(m.owns(t, s.id.to_string()));
          no_foreign_ids(m, t, core::to_json(backend::to_value(*r)));
        }
        break;
      }
      case 6: {  // the event stream
        auto r = p.watch(caller, 0, 10000);
        expect(r, m.may(t, who, std::nullopt, Role::Viewer));
        if (r) {
          no_foreign_ids(m, t, core::to_json(platform::to_value(*r)));
          gapless(r->events);
        }
        break;
      }
      case 7: {  // the audit log: the tenant's own numbers and chain
        auto r = p.list_audit(caller, {});
        expect(r, m.may(t, who, std::nullopt, Role::TenantAdmin));
        if (r) {
          no_foreign_ids(m, t, core::to_json(backend::to_value(*r)));
          gapless(r->items);
          if (!r->items.empty()) check(r->items.front().prev_hash == std::string(64, '0'));
          for (std::size_t k = 1; k < r->items.size(); ++k) check(r->items[k].prev_hash == r->items[k - 1].hash);
        }
        break;
      }
      case 10: {  // a caller-chosen id (another tenant's job's, its own tenant's, or fresh)
        job::Job j;
        j.name = "f";
        j.project_id = project_id(proj);
        j.id = job != nullptr && (b & 0x80) ? job->id : core::Id::generate();
        auto r = p.submit(caller, j);
        check(!r);
        if (m.may(t, who, proj, Role::Editor)) check(r.error().code == core::ErrorCode::Invalid && r.error().field == "id");
        else check(r.error().code == core::ErrorCode::Security);
        no_foreign_ids(m, t, r.error().describe());
        break;
      }
      case 11: {  // a platform-owned key or field: always refused
        job::Job j;
        j.name = "f";
        j.project_id = project_id(proj);
        std::string key;
        std::string field;
        switch (b % 4) {
          case 0: key = "budcore:pipeline/" + (job ? job->id.to_string() : std::string("x")) + "/s/1", field = "idempotency_key"; break;
          case 1: j.pipeline_id = job ? job->id : core::Id::generate(), field = "pipeline_id"; break;
          case 2: j.source = job::JobSource::Usecase, field = "source"; break;
          default: j.usecase_deployment_id = core::Id::generate(), field = "usecase_deployment_id"; break;
        }
        auto r = p.submit(caller, j, key);
        check(!r);
        if (m.may(t, who, proj, Role::Editor)) check(r.error().code == core::ErrorCode::Invalid && r.error().field == field);
        break;
      }
      case 12: {  // a secret reference: the tenant's own resolves, no spelling of another's does
        const int owner = (b / 16) % kTenants;
        const std::string ref = (b & 1) ? hex_of(owner) + "_k" : "k";
        job::Job j;
        j.name = "f";
        j.project_id = project_id(proj);
        j.estimated_duration_seconds = 60;
        j.spec = core::Value::map({{"env", core::Value::map({{"T", "secret://" + ref}})}});
        auto r = p.submit(caller, j);
        if (!m.may(t, who, proj, Role::Editor)) {
          check(!r && r.error().code == core::ErrorCode::Security);
          break;
        }
        // Only "k" in the caller's own namespace exists; a hex-prefixed name is no one's.
        const bool resolves = !(b & 1);
        check(r.has_value() == resolves);
        if (r) m.jobs.push_back({r->record.job.id, t, proj});
        else check(r.error().code == core::ErrorCode::NotFound && r.error().describe().find("value-of") == std::string::npos);
        break;
      }
      case 9: {  // the schedule timeline (every tenant simulated, one shown)
        auto r = p.schedule(caller);
        expect(r, m.may(t, who, std::nullopt, Role::Viewer));
        if (r) {
          for (const auto& e : r->jobs) check(m.owns(t, e.name));
          no_foreign_ids(m, t, schedule::to_json(*r, {-1, true}));
        }
        break;
      }
      case 8:  // time passes: jobs run and end
        check(p.run_until(p.now() + core::Duration::seconds(b % 90)).has_value());
        break;
    }
  }
  auto report = p.verify_audit(platform::CallContext::for_tenant(tenant_id(0), "user:root"));
  check(report && report->ok);
  check(p.check_invariants().has_value());
  (void)secrets_planted;
  return 0;
}
