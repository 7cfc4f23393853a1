// `budcore kubernetes ...`: the Kubernetes backend's operations on one job or one quota
// configuration, for operators and scripts.
//   render JOB [--quota KUEUE.yaml] [--model-image IMG] [--yaml]   objects, no cluster needed
//   apply-quota FILE [--prune]                                    Kueue objects server-side applied
//   submit JOB / status JOB / cancel JOB                          one job on the cluster
// Cluster commands take --kubeconfig (default: $KUBECONFIG, ~/.kube/config, in-cluster) and
// --context. JOB is a job document (JSON/YAML, "-" = stdin) with id and tenant_id set.
#include <iostream>
#include <memory>
#include <string>

#include "budcore/core/json.hpp"
#include "budcore/core/yaml.hpp"
#include "budcore/job/job.hpp"
#include "budcore/kubernetes/jobs.hpp"
#include "budcore/kubernetes/kueue.hpp"
#include "budcore/quota/scenario.hpp"
#include "cli/command.hpp"

namespace budcore::cli {
namespace {

using core::Value;

struct Args {
  std::string file;
  std::string quota;
  std::string model_image;
  std::string kubeconfig;
  std::string context;
  bool yaml = false;
  bool prune = false;
};

core::Result<job::Job> read_job(const std::string& file) {
  Value doc;
  BUDCORE_TRY_ASSIGN(doc, load_document_arg(file, "FILE"));
  return job::Job::from_value(doc);
}

// A quota configuration: Kueue YAML (file or directory) or budcore's configuration JSON.
core::Result<quota::QuotaConfig> read_quota(const std::string& file) {
  auto doc = load_document_arg(file, "FILE");
  if (doc && doc->is_map() && doc->find("cluster_queues") != nullptr) {
    quota::Scenario s;
    BUDCORE_TRY_ASSIGN(s, quota::parse_scenario(core::to_json(*doc)));
    return s.config;
  }
  auto imported = quota::import_kueue_path(file);
  if (!imported) return input_file_error(std::move(imported).error(), "FILE");
  for (const auto& w : imported->warnings) std::cerr << "warning: " << w << "\n";
  return imported->config;
}

core::Result<kubernetes::RenderOptions> render_options(const Args& a) {
  kubernetes::RenderOptions o;
  o.model_image = a.model_image;
  if (!a.quota.empty()) {
    quota::QuotaConfig cfg;
    BUDCORE_TRY_ASSIGN(cfg, read_quota(a.quota));
    o.flavors = cfg.resource_flavors;
  }
  return o;
}

core::Result<std::unique_ptr<kubernetes::Client>> connect(const Args& a) {
  kubernetes::ClusterConfig cfg;
  if (!a.kubeconfig.empty()) {
    BUDCORE_TRY_ASSIGN(cfg, kubernetes::load_kubeconfig(a.kubeconfig, a.context));
  } else {
    BUDCORE_TRY_ASSIGN(cfg, kubernetes::default_config(a.context));
  }
  return kubernetes::Client::open(std::move(cfg));
}

void print(const Value& v, bool yaml) {
  if (yaml) std::cout << core::to_yaml(v);
  else std::cout << core::to_json(v, {2}) << "\n";
}

Value observed_value(const kubernetes::ObservedJob& o) {
  core::Map flavors;
  for (const auto& [r, f] : o.flavors) flavors.set(r, f);
  return core::Map{{"status", std::string(job::to_string(o.status))}, {"message", o.message},
                   {"reason", o.reason},                               {"cluster_queue", o.cluster_queue},
                   {"flavors", std::move(flavors)},                    {"preemption_reason", o.preemption_reason}};
}

int run(const std::string& what, const Args& a) {
  if (what == "apply-quota") {
    auto cfg = read_quota(a.file);
    if (!cfg) return report_error(cfg.error());
    auto client = connect(a);
    if (!client) return report_error(client.error());
    kubernetes::ApplyOptions ao;
    ao.prune = a.prune;
    auto r = kubernetes::apply_quota(**client, *cfg, ao);
    if (!r) return report_error(r.error());
    core::List applied, created, pruned;
    for (const auto& s : r->applied) applied.emplace_back(s);
    for (const auto& s : r->created_namespaces) created.emplace_back(s);
    for (const auto& s : r->pruned) pruned.emplace_back(s);
    print(core::Map{{"applied", applied}, {"created_namespaces", created}, {"pruned", pruned}}, a.yaml);
    return kExitOk;
  }
  auto job = read_job(a.file);
  if (!job) return report_error(job.error());
  auto opts = render_options(a);
  if (!opts) return report_error(opts.error());
  if (what == "render") {
    auto r = kubernetes::render_job(*job, *opts);
    if (!r) return report_error(r.error());
    if (a.yaml) {
      for (std::size_t i = 0; i < r->objects.size(); ++i) std::cout << (i ? "---\n" : "") << core::to_yaml(r->objects[i]);
    } else {
      std::cout << core::to_json(Value(core::List(r->objects.begin(), r->objects.end())), {2}) << "\n";
    }
    return kExitOk;
  }
  auto client = connect(a);
  if (!client) return report_error(client.error());
  auto rendered = kubernetes::render_job(*job, *opts);
  if (!rendered) return report_error(rendered.error());
  if (what == "submit") {
    auto r = kubernetes::submit_job(**client, *job, *opts);
    if (!r) return report_error(r.error());
    print(core::Map{{"namespace", r->rendered.namespace_}, {"name", r->rendered.name}, {"created", r->created},
                    {"local_queue", r->rendered.local_queue}},
          a.yaml);
    return kExitOk;
  }
  if (what == "status") {
    auto o = kubernetes::observe(**client, *rendered);
    if (!o) return report_error(o.error());
    print(observed_value(*o), a.yaml);
    return kExitOk;
  }
  auto st = kubernetes::cancel_job(**client, *rendered);
  if (!st) return report_error(st.error());
  print(core::Map{{"cancelled", true}, {"namespace", rendered->namespace_}, {"name", rendered->name}}, a.yaml);
  return kExitOk;
}

const bool registered = register_commands([](CLI::App& root) {
  auto* k = root.add_subcommand("kubernetes", "Jobs and quotas on a Kubernetes cluster with Kueue");
  k->require_subcommand(1);
  struct Spec {
    const char* name;
    const char* help;
    bool cluster;
  } specs[] = {
      {"render", "Print the Kubernetes objects of a job (no cluster needed)", false},
      {"apply-quota", "Server-side apply a quota configuration as Kueue objects", true},
      {"submit", "Create a job's objects (idempotent)", true},
      {"status", "A job's status as Kueue and the Job report it", true},
      {"cancel", "Delete a job's objects and Workload", true},
  };
  for (const auto& s : specs) {
    auto args = std::make_shared<Args>();
    std::string what = s.name;
    auto* cmd = k->add_subcommand(s.name, s.help);
    cmd->add_option("FILE", args->file, what == "apply-quota" ? "quota configuration: Kueue YAML (file or directory) or budcore JSON"
                                                              : "job document (JSON or YAML, - for stdin)")
        ->required();
    cmd->add_flag("--yaml", args->yaml, "YAML output instead of JSON");
    if (what != "apply-quota") {
      cmd->add_option("--quota", args->quota, "quota configuration whose flavors pin a job's gpu_type");
      cmd->add_option("--model-image", args->model_image, "image of MODEL jobs whose spec names none");
    }
    if (s.cluster) {
      cmd->add_option("--kubeconfig", args->kubeconfig, "kubeconfig file (default: $KUBECONFIG, ~/.kube/config, in-cluster)");
      cmd->add_option("--context", args->context, "kubeconfig context (default: current-context)");
    }
    if (what == "apply-quota") cmd->add_flag("--prune", args->prune, "delete budcore's Kueue objects the configuration no longer has");
    cmd->callback([args, what] { exit_code() = run(what, *args); });
  }
});

}  // namespace
}  // namespace budcore::cli
