// The companion with a client and a Store of its own (companion/runner.hpp): the one path the
// command, the C ABI and the wrappers share.
#include "budcore/companion/runner.hpp"

#include "budcore/core/json.hpp"
#include "budcore/kubernetes/config.hpp"

namespace budcore::companion {
namespace {

// A file that cannot be read is the caller's input to fix: Invalid naming it.
core::Error input_error(core::Error e, const std::string& field, const std::string& value) {
  if (e.code == core::ErrorCode::Io) e.code = core::ErrorCode::Invalid;
  if (e.field.empty()) e.field = field;
  if (e.value.empty()) e.value = value;
  return e;
}

// Errors of a kubeconfig file name the caller's input, and the place in the file under it
// ("kubeconfig_path.current-context").
core::Result<kubernetes::ClusterConfig> cluster_of(const std::string& kubeconfig, const RunnerOptions& o) {
  if (kubeconfig.empty()) return kubernetes::default_config(o.context);
  auto c = kubernetes::load_kubeconfig(kubeconfig, o.context);
  if (c) return c;
  core::Error e = std::move(c).error();
  if (e.field == "kubeconfig") e.field.clear();
  if (!e.field.empty()) e.at(o.kubeconfig_field);
  return input_error(std::move(e), o.kubeconfig_field, kubeconfig);
}

}  // namespace

core::Value to_value(const Written& w) {
  core::Value v = to_value(w.decision);
  auto& m = v.mutable_map();
  m.set("workload", w.workload);
  m.set("admission_check", w.admission_check);
  return v;
}

core::Value to_value(const Pass& p) {
  core::List checks(p.admission_checks.begin(), p.admission_checks.end());
  core::List written, errors;
  for (const auto& w : p.written) written.push_back(to_value(w));
  for (const auto& e : p.retrying) errors.push_back(core::to_value(e));
  core::Map m{{"leader", p.leader}};
  if (!p.identity.empty()) m.set("identity", p.identity);
  m.set("admission_checks", std::move(checks));
  m.set("written", std::move(written));
  m.set("retrying", std::move(errors));
  return m;
}

core::Result<std::unique_ptr<Runner>> Runner::open(CompanionConfig config, RunnerOptions options) {
  std::unique_ptr<Runner> r(new Runner());
  std::string kubeconfig = !options.kubeconfig.empty() ? options.kubeconfig : config.kubeconfig;
  BUDCORE_TRY_ASSIGN(auto cluster, cluster_of(kubeconfig, options));
  BUDCORE_TRY_ASSIGN(r->client_, kubernetes::Client::open(std::move(cluster)));
  r->store_uri_ = !options.store.empty() ? options.store : !config.store.empty() ? config.store : std::string(kDefaultStore);
  auto store = backend::open_store(r->store_uri_);
  if (!store) {
    core::Error e = std::move(store).error();
    // Named as the caller's input; an unreachable database stays Io (not the input's fault).
    if (e.field.empty() || e.field == "uri") e.field = options.store_field;
    if (e.value.empty()) e.value = r->store_uri_;
    return e;
  }
  r->store_ = std::move(*store);
  BUDCORE_TRY_ASSIGN(r->companion_, Companion::open(std::move(config), *r->client_, *r->store_, options.companion));
  return r;
}

Runner::~Runner() {
  // The companion refers to the client and the Store: it goes first.
  companion_.reset();
}

core::Result<Pass> Runner::sync_once() {
  Pass pass;
  LeaderElector* leader = companion_->leader();
  if (leader != nullptr) {
    pass.identity = leader->identity();
    // One attempt at the Lease: a replica that does not get it writes nothing.
    BUDCORE_TRY_ASSIGN(bool held, leader->try_acquire_or_renew());
    if (!held) {
      pass.leader = false;
      return pass;
    }
  }
  BUDCORE_TRY_ASSIGN(pass.admission_checks, companion_->activate_checks());
  BUDCORE_TRY_ASSIGN(pass.written, companion_->sync(1));
  pass.retrying = companion_->take_retrying();
  if (leader != nullptr) BUDCORE_TRY(leader->release());
  return pass;
}

void Runner::run(const std::function<void(const Written&)>& on_written,
                 const std::function<void(const core::Error&)>& on_error) {
  companion_->run(on_written, on_error);
}

void Runner::stop() noexcept { companion_->stop(); }

Companion& Runner::companion() noexcept { return *companion_; }

const std::string& Runner::store_uri() const noexcept { return store_uri_; }

}  // namespace budcore::companion
