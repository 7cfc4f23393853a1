// budcore Job -> batch/v1 Job, or Workload + Deployment + Service for service jobs.
#include "budcore/kubernetes/render.hpp"

#include <algorithm>
#include <cctype>
#include <limits>

#include "backends/kubernetes/util.hpp"
#include "budcore/backend/secret_provider.hpp"
#include "budcore/core/json.hpp"
#include "budcore/kubernetes/client.hpp"
#include "core/field_reader.hpp"

namespace budcore::kubernetes {
namespace {

using core::Error;
using core::List;
using core::Map;
using core::Value;

constexpr std::string_view kSpecKeys[] = {"image",   "command",   "args",          "model_id",        "env",
                                          "secret_env", "env_from_secrets", "ports", "node_selector", "tolerations",
                                          "replicas", "service_account", "working_dir", "image_pull_secrets", "values"};
constexpr std::string_view kTolerationKeys[] = {"key", "operator", "value", "effect", "tolerationSeconds"};
constexpr std::string_view kPortKeys[] = {"name", "port", "protocol"};
constexpr std::string_view kSecretRefKeys[] = {"secret", "key"};

core::Status under(core::Status st, const std::string& path) {
  if (st) return st;
  Error e = st.error();
  e.at(path);
  return e;
}

// DNS-1123 subdomain-ish names (Secrets, service accounts) and C_IDENTIFIER-ish env names.
bool dns_name(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.'; }) &&
         s.front() != '-' && s.back() != '-';
}
bool env_name(std::string_view s) {
  if (s.empty() || s.size() > 256 || (s.front() >= '0' && s.front() <= '9')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
  });
}

core::Result<List> string_list(const Value& v, const std::string& path) {
  if (!v.is_list()) return Error::invalid(path, {}, "expected a list of strings");
  List out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const Value& s = v.as_list()[i];
    if (!s.is_string()) return Error::invalid(path + "[" + std::to_string(i) + "]", {}, "expected a string");
    out.push_back(s);
  }
  return out;
}

core::Result<Map> string_map(const Value& v, const std::string& path, bool label_keys) {
  if (!v.is_map()) return Error::invalid(path, {}, "expected a map of strings");
  Map out;
  for (const auto& [k, val] : v.as_map()) {
    if (!val.is_string()) return Error::invalid(path + "." + k, core::detail::value_text(val), "expected a string");
    if (label_keys && (k.empty() || k.size() > 316)) return Error::invalid(path, k, "not a valid label key");
    out.set(k, val);
  }
  return out;
}

struct Container {
  Value container;  // the container object
  Map node_selector;
  List tolerations;
  List ports;       // Service ports
  std::int64_t replicas = 1;
  std::string service_account;
  List pull_secrets;
};

// GPU vendors' and node feature discovery's labels and taints (nvidia.com/gpu.present,
// amd.com/gpu, feature.node.kubernetes.io/pci-10de.present, ...) mark GPU nodes: where a job
// lands among them is the platform's to choose, from gpu_count and gpu_type. Compared lower-
// cased, as a prefix; the list names the vendors' documented label namespaces.
bool gpu_node_key(std::string_view key) {
  std::string k(key);
  for (char& c : k) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static constexpr std::string_view kPrefixes[] = {"nvidia.com/", "amd.com/", "gpu.intel.com/", "habana.ai/",
                                                   "cloud.google.com/gke-accelerator", "cloud.google.com/gke-gpu",
                                                   "k8s.amazonaws.com/accelerator"};
  for (std::string_view p : kPrefixes)
    if (k.starts_with(p)) return true;
  // NFD's PCI labels: vendor 10de is NVIDIA, 1002 AMD.
  return k.starts_with("feature.node.kubernetes.io/pci-") &&
         (k.find("10de") != std::string::npos || k.find("1002") != std::string::npos);
}

// A job's toleration may not open nodes the platform keeps apart: every taint at once (Exists
// without a key), GPU nodes' taints for a job without GPUs, or a flavor's taints (nodes
// dedicated to one GPU model or to some tenants).
core::Status check_toleration(const job::Job& job, const std::string& key, const std::string& op, const std::string& at,
                              const RenderOptions& o) {
  if (key.empty() && op == "Exists")
    return Error{core::ErrorCode::Security, "a toleration with operator Exists and no key tolerates every taint, the platform's too",
                 at, "{operator: Exists}"};
  if (gpu_node_key(key) && job.gpu_count == 0)
    return Error{core::ErrorCode::Security, "tolerates a GPU node taint but requests no GPU: jobs reach GPU nodes by gpu_count",
                 at + ".key", key};
  for (const auto& f : o.flavors)
    for (const auto& t : f.node_taints)
      if (t.key == key)
        return Error{core::ErrorCode::Security, "tolerates flavor " + f.name + "'s taint: the platform places jobs on flavors", at + ".key", key};
  return {};
}

// spec.env, spec.secret_env: the container's environment. A secret is referenced, never read.
core::Result<List> read_env(const job::Job& job, const Map& spec) {
  List env;
  if (const Value* v = spec.find("env"); v && !v->is_null()) {
    if (!v->is_map()) return Error::invalid("spec.env", {}, "expected a map NAME -> value");
    for (const auto& [k, val] : v->as_map()) {
      if (!env_name(k)) return Error::invalid("spec.env", k, "not a valid environment variable name");
      if (!val.is_string() && !val.is_number() && !val.is_bool())
        return Error::invalid("spec.env." + k, core::detail::value_text(val), "expected a string, number or boolean");
      // "secret://name" is the cluster's Secret `name` (key "value"): the value never passes
      // through budcore (docs/security.md "Secrets").
      if (val.is_string() && val.as_string().starts_with(backend::kSecretScheme)) {
        auto refs = backend::secret_refs(val.as_string(), "spec.env." + k);
        if (!refs) return refs.error();
        const std::string ref_name = val.as_string().substr(backend::kSecretScheme.size());
        if (refs->size() != 1 || refs->front() != ref_name || !dns_name(ref_name))
          return Error::invalid("spec.env." + k, val.as_string(),
                                "a secret reference in env must be the whole value and name a valid Secret");
        env.emplace_back(Map{{"name", k}, {"valueFrom", Map{{"secretKeyRef", Map{{"name", ref_name}, {"key", "value"}}}}}});
        continue;
      }
      env.emplace_back(Map{{"name", k}, {"value", val.is_string() ? val.as_string() : core::detail::value_text(val)}});
    }
  }
  if (const Value* v = spec.find("secret_env"); v && !v->is_null()) {
    if (!v->is_map()) return Error::invalid("spec.secret_env", {}, "expected a map NAME -> {secret, key}");
    for (const auto& [k, ref] : v->as_map()) {
      std::string p = "spec.secret_env." + k;
      if (!env_name(k)) return Error::invalid("spec.secret_env", k, "not a valid environment variable name");
      if (!ref.is_map()) return Error::invalid(p, {}, "expected {secret: <name>, key: <key>}");
      core::detail::Reader rr(ref.as_map());
      BUDCORE_TRY(under(rr.reject_unknown(kSecretRefKeys), p));
      auto secret = rr.string("secret");
      auto key = rr.string("key");
      if (!secret || !*secret || !dns_name(**secret))
        return Error::invalid(p + ".secret", secret && *secret ? **secret : "", "a Secret name (DNS-1123) is required");
      if (!key || !*key || (*key)->empty()) return Error::invalid(p + ".key", {}, "required field is missing");
      env.emplace_back(Map{{"name", k}, {"valueFrom", Map{{"secretKeyRef", Map{{"name", **secret}, {"key", **key}}}}}});
    }
  }
  // A container without GPUs says so to the NVIDIA runtime: a Secret named in env_from_secrets
  // (whose keys budcore cannot see) could otherwise carry NVIDIA_VISIBLE_DEVICES=all, and env
  // takes precedence over envFrom.
  if (job.gpu_count == 0) env.emplace_back(Map{{"name", "NVIDIA_VISIBLE_DEVICES"}, {"value", "void"}});
  return env;
}

// spec.ports: the container's ports and the Service's.
core::Status read_ports(const Map& spec, Map& c, Container& out) {
  if (const Value* v = spec.find("ports"); v && !v->is_null()) {
    if (!v->is_list()) return Error::invalid("spec.ports", {}, "expected a list of {name, port, protocol}");
    List cports;
    for (std::size_t i = 0; i < v->size(); ++i) {
      const Value& pv = v->as_list()[i];
      std::string p = "spec.ports[" + std::to_string(i) + "]";
      Map port;
      std::int64_t number = 0;
      std::string name, protocol = "TCP";
      if (pv.is_int()) {
        number = pv.as_int();
      } else if (pv.is_map()) {
        core::detail::Reader pr(pv.as_map());
        BUDCORE_TRY(under(pr.reject_unknown(kPortKeys), p));
        auto n = pr.integer("port");
        if (!n) return std::move(under(core::Status(n.error()), p).error());
        if (!*n) return Error::invalid(p + ".port", {}, "required field is missing");
        number = **n;
        if (auto nm = pr.string("name"); nm && *nm) name = **nm;
        if (auto pt = pr.string("protocol"); pt && *pt) protocol = **pt;
      } else {
        return Error::invalid(p, core::detail::value_text(pv), "expected a port number or {name, port, protocol}");
      }
      if (number < 1 || number > 65535) return Error::invalid(p + ".port", std::to_string(number), "must be 1-65535");
      if (protocol != "TCP" && protocol != "UDP" && protocol != "SCTP")
        return Error::invalid(p + ".protocol", protocol, "expected TCP, UDP or SCTP");
      if (name.empty()) name = "port-" + std::to_string(number);
      cports.emplace_back(Map{{"name", name}, {"containerPort", number}, {"protocol", protocol}});
      out.ports.emplace_back(Map{{"name", name}, {"port", number}, {"targetPort", number}, {"protocol", protocol}});
    }
    c.set("ports", std::move(cports));
  }
  return {};
}

// spec.node_selector, spec.tolerations: where the job may land, never past what the platform
// keeps apart (GPU nodes, flavors' taints).
core::Status read_placement(const job::Job& job, const Map& spec, const RenderOptions& o, Container& out) {
  if (const Value* v = spec.find("node_selector"); v && !v->is_null()) {
    BUDCORE_TRY_ASSIGN(out.node_selector, string_map(*v, "spec.node_selector", true));
    for (const auto& [k, val] : out.node_selector)
      if (gpu_node_key(k))
        return Error::invalid("spec.node_selector." + k, core::detail::value_text(val),
                              "is a GPU node label: jobs reach GPU nodes by gpu_count and gpu_type");
  }
  if (const Value* v = spec.find("tolerations"); v && !v->is_null()) {
    if (!v->is_list()) return Error::invalid("spec.tolerations", {}, "expected a list of tolerations");
    for (std::size_t i = 0; i < v->size(); ++i) {
      const Value& t = v->as_list()[i];
      std::string p = "spec.tolerations[" + std::to_string(i) + "]";
      if (!t.is_map()) return Error::invalid(p, {}, "expected a toleration {key, operator, value, effect}");
      core::detail::Reader tr(t.as_map());
      BUDCORE_TRY(under(tr.reject_unknown(kTolerationKeys), p));
      auto op = tr.string("operator");
      if (!op) return std::move(under(core::Status(op.error()), p).error());
      if (*op && **op != "Exists" && **op != "Equal") return Error::invalid(p + ".operator", **op, "expected Exists or Equal");
      auto eff = tr.string("effect");
      if (!eff) return std::move(under(core::Status(eff.error()), p).error());
      if (*eff && !(*eff)->empty() && **eff != "NoSchedule" && **eff != "PreferNoSchedule" && **eff != "NoExecute")
        return Error::invalid(p + ".effect", **eff, "expected NoSchedule, PreferNoSchedule or NoExecute");
      auto key = tr.string("key");
      if (!key) return std::move(under(core::Status(key.error()), p).error());
      BUDCORE_TRY(check_toleration(job, key->value_or(""), op->value_or("Equal"), p, o));
      out.tolerations.push_back(t);
    }
  }
  return {};
}

// Resources: requests for everything; extended resources (GPUs, MIG slices) need limits too.
core::Result<Map> container_resources(const job::Job& job, const RenderOptions& o) {
  core::ResourceList req;
  BUDCORE_TRY_ASSIGN(req, job.resources(o.layout.gpu_resource_names));
  Map requests, limits;
  for (const auto& [name, q] : req.items()) {
    if (q.is_zero()) continue;
    requests.set(name, q.to_string());
    if (name.find('/') != std::string::npos) limits.set(name, q.to_string());
  }
  Map res{{"requests", std::move(requests)}};
  if (!limits.empty()) res.set("limits", std::move(limits));
  return res;
}

// spec.image, spec.command, spec.args (a MODEL job defaults to the model image serving model_id).
core::Status read_program(const job::Job& job, core::detail::Reader& r, const Map& spec, const RenderOptions& o, Map& c) {
  auto image = r.string("image");
  if (!image) return std::move(under(core::Status(image.error()), "spec").error());
  std::optional<std::string> model_id;
  if (auto m = r.string("model_id"); !m) return std::move(under(core::Status(m.error()), "spec").error());
  else model_id = *m;
  std::string img = image->value_or("");
  if (img.empty() && job.deployment_type == job::DeploymentType::Model) img = o.model_image;
  if (img.empty())
    return Error::invalid("spec.image", {}, job.deployment_type == job::DeploymentType::Model
                                                 ? "required: a MODEL job needs spec.image (or a default model image)"
                                                 : "required field is missing");
  c.set("image", img);
  if (const Value* v = spec.find("command"); v && !v->is_null()) {
    List l;
    BUDCORE_TRY_ASSIGN(l, string_list(*v, "spec.command"));
    c.set("command", std::move(l));
  }
  if (const Value* v = spec.find("args"); v && !v->is_null()) {
    List l;
    BUDCORE_TRY_ASSIGN(l, string_list(*v, "spec.args"));
    c.set("args", std::move(l));
  } else if (job.deployment_type == job::DeploymentType::Model && model_id) {
    c.set("args", List{Value("--model"), Value(*model_id)});
  }
  return {};
}

// spec.replicas, spec.service_account, spec.image_pull_secrets: the pods' identity and count.
core::Status read_pod_identity(const job::Job& job, core::detail::Reader& r, const Map& spec, Container& out) {
  if (auto rep = r.integer("replicas"); !rep) {
    return std::move(under(core::Status(rep.error()), "spec").error());
  } else if (*rep) {
    if (**rep < 1 || **rep > quota::kMaxReplicas)
      return Error::invalid("spec.replicas", std::to_string(**rep), "must be between 1 and " + std::to_string(quota::kMaxReplicas));
    if (job.job_type != job::JobType::Service) return Error::invalid("spec.replicas", std::to_string(**rep), "only service jobs have replicas");
    out.replicas = **rep;
  }
  if (auto sa = r.string("service_account"); sa && *sa) {
    if (!dns_name(**sa)) return Error::invalid("spec.service_account", **sa, "not a valid service account name");
    out.service_account = **sa;
  }
  if (const Value* v = spec.find("image_pull_secrets"); v && !v->is_null()) {
    List names;
    BUDCORE_TRY_ASSIGN(names, string_list(*v, "spec.image_pull_secrets"));
    for (const auto& n : names) out.pull_secrets.emplace_back(Map{{"name", n}});
  }
  return {};
}

core::Result<Container> read_spec(const job::Job& job, const RenderOptions& o) {
  if (job.deployment_type == job::DeploymentType::Helm)
    return Error::make(core::ErrorCode::Unsupported,
                       "HELM jobs are not rendered by the kubernetes backend; use deployment_type docker or model",
                       "deployment_type");
  if (!job.spec.is_map()) return Error::invalid("spec", {}, "expected a map");
  const Map& spec = job.spec.as_map();
  core::detail::Reader r(spec);
  BUDCORE_TRY(under(r.reject_unknown(kSpecKeys), "spec"));
  Container out;
  Map c{{"name", o.container_name}};
  BUDCORE_TRY(read_program(job, r, spec, o, c));
  BUDCORE_TRY_ASSIGN(List env, read_env(job, spec));
  if (!env.empty()) c.set("env", std::move(env));
  if (const Value* v = spec.find("env_from_secrets"); v && !v->is_null()) {
    List names;
    BUDCORE_TRY_ASSIGN(names, string_list(*v, "spec.env_from_secrets"));
    List from;
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (!dns_name(names[i].as_string()))
        return Error::invalid("spec.env_from_secrets[" + std::to_string(i) + "]", names[i].as_string(), "not a valid Secret name");
      from.emplace_back(Map{{"secretRef", Map{{"name", names[i]}}}});
    }
    c.set("envFrom", std::move(from));
  }
  if (const Value* v = spec.find("working_dir"); v && !v->is_null()) {
    if (!v->is_string()) return Error::invalid("spec.working_dir", {}, "expected a string");
    c.set("workingDir", *v);
  }
  BUDCORE_TRY(read_ports(spec, c, out));
  BUDCORE_TRY(read_placement(job, spec, o, out));
  BUDCORE_TRY(read_pod_identity(job, r, spec, out));
  BUDCORE_TRY_ASSIGN(Map res, container_resources(job, o));
  c.set("resources", std::move(res));
  out.container = Value(std::move(c));
  return out;
}

Map owner_labels(const job::Job& job) {
  Map l{{kLabelManagedBy, kManagedByValue}, {kLabelJobId, job.id.to_string()}, {kLabelJobType, std::string(job::to_string(job.job_type))}};
  if (!job.tenant_id.is_nil()) l.set(kLabelTenant, job.tenant_id.to_string());
  if (!job.project_id.is_nil()) l.set(kLabelProject, job.project_id.to_string());
  if (job.pipeline_id) l.set(kLabelPipeline, job.pipeline_id->to_string());
  if (job.pipeline_step_id) l.set(kLabelStep, job.pipeline_step_id->to_string());
  if (job.usecase_deployment_id) l.set(kLabelUsecase, job.usecase_deployment_id->to_string());
  return l;
}

Value pod_template(const job::Job& job, const Container& c, const Map& labels, bool batch) {
  Map pod{{"containers", List{c.container}}};
  if (batch) pod.set("restartPolicy", "Never");
  if (!c.node_selector.empty()) pod.set("nodeSelector", c.node_selector);
  if (!c.tolerations.empty()) pod.set("tolerations", c.tolerations);
  if (!c.service_account.empty()) pod.set("serviceAccountName", c.service_account);
  if (!c.pull_secrets.empty()) pod.set("imagePullSecrets", c.pull_secrets);
  (void)job;
  return Map{{"metadata", Map{{"labels", labels}}}, {"spec", std::move(pod)}};
}

Value meta(const std::string& name, const std::string& ns, Map labels, Map annotations) {
  Map m{{"name", name}, {"namespace", ns}, {"labels", std::move(labels)}};
  if (!annotations.empty()) m.set("annotations", std::move(annotations));
  return m;
}

}  // namespace

std::string object_name_for(const core::Id& job_id, std::int64_t run) {
  return "bc-" + job_id.to_string() + (run > 1 ? "-r" + std::to_string(run) : std::string());
}

std::string priority_class_name(job::JobPriority p) { return "budcore-" + std::string(job::to_string(p)); }

std::vector<quota::WorkloadPriorityClass> budcore_priority_classes() {
  std::vector<quota::WorkloadPriorityClass> out;
  for (auto p : job::kAllJobPriorities) {
    quota::WorkloadPriorityClass pc;
    pc.name = priority_class_name(p);
    pc.value = job::kueue_priority_value(p);
    pc.description = "budcore priority " + std::string(job::to_string(p));
    out.push_back(std::move(pc));
  }
  return out;
}

core::Result<RenderedJob> render_job(const job::Job& job, const RenderOptions& o, std::int64_t run) {
  if (run < 1 || run > 1'000'000) return Error::invalid("run", std::to_string(run), "must be between 1 and 1000000");
  if (job.id.is_nil()) return Error::invalid("id", {}, "a job needs an id before it is rendered (object names derive from it)");
  if (job.tenant_id.is_nil()) return Error::invalid("tenant_id", {}, "a job needs a tenant (its namespace derives from it)");
  Container c;
  BUDCORE_TRY_ASSIGN(c, read_spec(job, o));
  // The labels flavors are told apart by are the platform's: a job's own selector may not name
  // one (it would move the job onto nodes of a GPU model its gpu_type and its tenant's policy
  // do not allow); the flavor its gpu_type names then pins them.
  for (const auto& f : o.flavors)
    for (const auto& [k, v] : f.node_labels)
      if (c.node_selector.contains(k))
        return Error::invalid("spec.node_selector." + k, core::detail::value_text(*c.node_selector.find(k)),
                              "is a flavor's node label: the platform sets it from gpu_type");
  if (job.gpu_type)
    for (const auto& f : o.flavors)
      if (f.name == *job.gpu_type)
        for (const auto& [k, v] : f.node_labels) c.node_selector.set(k, v);

  RenderedJob out;
  quota::LocalQueue lq = quota::local_queue_for(job, o.layout);
  out.namespace_ = lq.namespace_;
  out.local_queue = lq.name;
  out.name = object_name_for(job.id, run);
  out.priority_class = priority_class_name(job.priority);
  Map labels = owner_labels(job);
  labels.set(kLabelRun, std::to_string(run));
  Map pod_labels = labels;
  Map annotations{{kAnnotationJobName, job.name}};

  const bool multikueue = o.multikueue_cluster_queues.contains(lq.cluster_queue);
  if (multikueue && job.job_type == job::JobType::Service)
    return Error::make(core::ErrorCode::Unsupported,
                       "ClusterQueue " + lq.cluster_queue + " dispatches through MultiKueue, which needs a batch Job; service jobs cannot go there",
                       "job_type");
  if (job.job_type != job::JobType::Service) {
    Map jl = labels;
    jl.set(kLabelQueueName, out.local_queue);
    jl.set(kLabelPriorityClass, out.priority_class);
    Map spec{{"suspend", true}, {"parallelism", 1}, {"completions", 1}, {"backoffLimit", 0},
             {"template", pod_template(job, c, pod_labels, true)}};
    if (job.max_duration_seconds) spec.set("activeDeadlineSeconds", *job.max_duration_seconds);
    if (multikueue) spec.set("managedBy", kMultiKueueController);
    Map obj{{"apiVersion", "batch/v1"}, {"kind", "Job"}, {"metadata", meta(out.name, out.namespace_, std::move(jl), annotations)},
            {"spec", std::move(spec)}};
    std::string hash = fnv1a_hex(core::to_json(Value(obj)));
    obj["metadata"].mutable_map()["annotations"].mutable_map().set(kAnnotationRenderHash, hash);
    out.objects.emplace_back(std::move(obj));
    return out;
  }

  // Service: the Workload budcore owns (Kueue admits it), a Deployment held at 0 replicas until
  // then, and a Service in front of it.
  Map sel{{kLabelJobId, job.id.to_string()}};
  Value tmpl = pod_template(job, c, pod_labels, false);
  Map wl_labels = labels;
  Map wl_spec{{"queueName", out.local_queue},
              {"priorityClassRef", Map{{"group", "kueue.x-k8s.io"}, {"kind", "WorkloadPriorityClass"}, {"name", out.priority_class}}},
              {"priority", job::kueue_priority_value(job.priority)},
              {"podSets", List{Map{{"name", "main"}, {"count", c.replicas}, {"template", tmpl}}}}};
  out.objects.emplace_back(Map{{"apiVersion", resources::workloads().api_version()},
                               {"kind", "Workload"},
                               {"metadata", meta(out.name, out.namespace_, wl_labels, annotations)},
                               {"spec", std::move(wl_spec)}});
  Map dep_ann = annotations;
  dep_ann.set(kAnnotationReplicas, std::to_string(c.replicas));
  out.objects.emplace_back(Map{{"apiVersion", "apps/v1"},
                               {"kind", "Deployment"},
                               {"metadata", meta(out.name, out.namespace_, labels, dep_ann)},
                               {"spec", Map{{"replicas", 0}, {"selector", Map{{"matchLabels", sel}}}, {"template", tmpl}}}});
  if (!c.ports.empty()) {
    out.objects.emplace_back(Map{{"apiVersion", "v1"},
                                 {"kind", "Service"},
                                 {"metadata", meta(out.name, out.namespace_, labels, annotations)},
                                 {"spec", Map{{"selector", sel}, {"ports", c.ports}, {"type", "ClusterIP"}}}});
  }
  for (auto& obj : out.objects) {
    std::string hash = fnv1a_hex(core::to_json(obj));
    obj.mutable_map()["metadata"].mutable_map()["annotations"].mutable_map().set(kAnnotationRenderHash, hash);
  }
  return out;
}

namespace {

const Value* at_path(const Value& v, std::initializer_list<std::string_view> path) {
  const Value* cur = &v;
  for (auto key : path) {
    if (cur == nullptr || !cur->is_map()) return nullptr;
    cur = cur->find(key);
  }
  return cur;
}

std::string text(const Value* v) {
  if (v == nullptr || v->is_null()) return "(absent)";
  return v->is_string() ? "'" + v->as_string() + "'" : core::to_json(*v);
}

}  // namespace

std::string find_drift(const Value& rendered, const Value& live) {
  auto where = [&] {
    std::string kind = rendered.find("kind") && rendered.find("kind")->is_string() ? rendered.find("kind")->as_string() : "object";
    const Value* ns = at_path(rendered, {"metadata", "namespace"});
    const Value* name = at_path(rendered, {"metadata", "name"});
    return kind + " " + (ns && ns->is_string() ? ns->as_string() + "/" : "") + (name && name->is_string() ? name->as_string() : "");
  };
  auto differs = [&](const std::string& path, const Value* want, const Value* have) -> std::string {
    bool same = (want == nullptr && have == nullptr) || (want && have && *want == *have);
    if (same) return {};
    return where() + ": " + path + " is " + text(have) + ", budcore set " + text(want);
  };
  if (const Value* labels = at_path(rendered, {"metadata", "labels"}); labels && labels->is_map())
    for (const auto& [k, v] : labels->as_map()) {
      const Value* have = at_path(live, {"metadata", "labels"});
      have = have && have->is_map() ? have->find(k) : nullptr;
      if (auto d = differs("metadata.labels." + k, &v, have); !d.empty()) return d;
    }
  const Value* want_tmpl = at_path(rendered, {"spec", "template", "spec", "containers"});
  const Value* have_tmpl = at_path(live, {"spec", "template", "spec", "containers"});
  if (const Value* pods = at_path(rendered, {"spec", "podSets"}); pods && pods->is_list() && pods->size() > 0) {
    want_tmpl = at_path(pods->as_list()[0], {"template", "spec", "containers"});
    const Value* hp = at_path(live, {"spec", "podSets"});
    have_tmpl = hp && hp->is_list() && hp->size() > 0 ? at_path(hp->as_list()[0], {"template", "spec", "containers"}) : nullptr;
    if (auto d = differs("spec.podSets[0].count", at_path(pods->as_list()[0], {"count"}),
                         hp && hp->is_list() && hp->size() > 0 ? at_path(hp->as_list()[0], {"count"}) : nullptr);
        !d.empty())
      return d;
  }
  if (want_tmpl && want_tmpl->is_list() && want_tmpl->size() > 0) {
    const Value& wc = want_tmpl->as_list()[0];
    const Value* hc = have_tmpl && have_tmpl->is_list() && have_tmpl->size() > 0 ? &have_tmpl->as_list()[0] : nullptr;
    std::string base = "spec.template.spec.containers[0].";
    if (auto d = differs(base + "image", wc.find("image"), hc ? hc->find("image") : nullptr); !d.empty()) return d;
    for (const char* kind : {"requests", "limits"}) {
      const Value* w = at_path(wc, {"resources", kind});
      const Value* h = hc ? at_path(*hc, {"resources", kind}) : nullptr;
      if (w && w->is_map())
        for (const auto& [res, q] : w->as_map()) {
          const Value* hq = h && h->is_map() ? h->find(res) : nullptr;
          // The server normalizes quantities ("1024Mi" -> "1Gi"): compare amounts.
          if (hq && hq->is_string() && q.is_string()) {
            auto a = core::Quantity::parse(q.as_string());
            auto b = core::Quantity::parse(hq->as_string());
            if (a && b && *a == *b) continue;
          }
          if (auto d = differs(base + "resources." + kind + "." + res, &q, hq); !d.empty()) return d;
        }
    }
  }
  return {};
}

}  // namespace budcore::kubernetes
