#include "budcore/kubernetes/jobs.hpp"

#include <algorithm>

#include "budcore/kubernetes/kueue.hpp"
#include "backends/kubernetes/util.hpp"

namespace budcore::kubernetes {
namespace {

using core::Error;
using core::ErrorCode;
using core::Value;

const Resource& resource_for(const Value& v) {
  const Value* api = v.find("apiVersion");
  const Resource* r = resources::by_kind(api != nullptr && api->is_string() ? api->as_string() : "", kind_of(v));
  return r != nullptr ? *r : resources::config_maps();  // render_job only makes known kinds
}

std::string label(const Value& v, std::string_view key) {
  const Value* l = v.find_path("metadata.labels");
  const Value* f = l != nullptr && l->is_map() ? l->find(key) : nullptr;
  return f != nullptr && f->is_string() ? f->as_string() : std::string();
}

// A decimal count 1..max (labels and annotations are text a person may have edited).
bool parse_count(const std::string& text, std::int64_t max, std::int64_t& out) {
  if (text.empty() || text.size() > 9) return false;
  std::int64_t n = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + (c - '0');
  }
  if (n < 1 || n > max) return false;
  out = n;
  return true;
}

bool is_true(const Value& object, std::string_view condition) {
  auto c = find_condition(object, condition);
  return c && c->status == "True";
}

}  // namespace

core::Result<SubmitResult> submit_job(Client& client, const job::Job& job, const RenderOptions& options, std::int64_t run) {
  SubmitResult out;
  BUDCORE_TRY_ASSIGN(out.rendered, render_job(job, options, run));
  const std::string& ns = out.rendered.namespace_;
  bool made_ns;
  BUDCORE_TRY_ASSIGN(made_ns, ensure_namespace(client, ns));
  (void)made_ns;
  for (const auto& obj : out.rendered.objects) {
    const Resource& r = resource_for(obj);
    auto made = client.create(r, ns, obj);
    if (made) {
      out.created = true;
      continue;
    }
    if (made.error().code != ErrorCode::AlreadyExists) return std::move(made).error();
    auto live = client.get(r, ns, meta_str(obj, "name"));
    if (!live) return std::move(live).error();
    std::string owner = label(*live, kLabelJobId);
    if (owner != job.id.to_string()) {
      Error e = Error::make(ErrorCode::Conflict,
                            kind_of(obj) + " " + ns + "/" + meta_str(obj, "name") + " exists but belongs to " +
                                (owner.empty() ? std::string("no budcore job") : "job " + owner),
                            std::string("metadata.labels.") + kLabelJobId);
      e.value = owner;
      return e;
    }
    if (std::string drift = find_drift(obj, *live); !drift.empty()) {
      return Error::make(ErrorCode::Conflict, drift + " (edited by hand?); delete the object or restore the field",
                         "objects");
    }
  }
  return out;
}

core::Result<JobObjects> fetch_job_objects(Client& client, const RenderedJob& rendered) {
  JobObjects out;
  const std::string& ns = rendered.namespace_;
  const Value* main = nullptr;
  for (const auto& obj : rendered.objects)
    if (kind_of(obj) == "Job" || kind_of(obj) == "Deployment") main = &obj;
  if (main != nullptr) {
    auto live = client.get(resource_for(*main), ns, rendered.name);
    if (live) out.job_object = std::move(*live);
    else if (live.error().code != ErrorCode::NotFound) return std::move(live).error();
  }
  bool owns_workload = false;
  for (const auto& obj : rendered.objects) owns_workload |= kind_of(obj) == "Workload";
  if (owns_workload) {
    auto wl = client.get(resources::workloads(), ns, rendered.name);
    if (wl) out.workload = std::move(*wl);
    else if (wl.error().code != ErrorCode::NotFound) return std::move(wl).error();
  } else if (out.job_object) {
    ListOptions lo;
    lo.label_selector = "kueue.x-k8s.io/job-uid=" + meta_str(*out.job_object, "uid");
    ObjectList l;
    BUDCORE_TRY_ASSIGN(l, client.list(resources::workloads(), ns, lo));
    // Several only after a delete + recreate under the same uid (impossible) or a Kueue retry;
    // the newest one speaks for the job.
    for (auto& w : l.items)
      if (!out.workload || meta_str(w, "creationTimestamp") >= meta_str(*out.workload, "creationTimestamp"))
        out.workload = std::move(w);
  }
  // Kueue finishes a Workload after its Job ends (on a MultiKueue manager, after copying the
  // worker Job's status): a Job read before the Workload may not show that end yet, and its
  // times are the metered interval, so read it again.
  if (out.job_object && out.workload && is_true(*out.workload, "Finished") && kind_of(*out.job_object) == "Job" &&
      !is_true(*out.job_object, "Complete") && !is_true(*out.job_object, "Failed")) {
    auto again = client.get(resources::jobs(), ns, rendered.name);
    if (again) out.job_object = std::move(*again);
  }
  return out;
}

core::Status start_admitted_service(Client& client, const RenderedJob& rendered, const JobObjects& objects) {
  if (!objects.job_object || !objects.workload || kind_of(*objects.job_object) != "Deployment") return {};
  auto adm = find_condition(*objects.workload, "Admitted");
  if (!adm || adm->status != "True") return {};
  const Value* replicas = objects.job_object->find_path("spec.replicas");
  if (replicas != nullptr && replicas->is_int() && replicas->as_int() > 0) return {};  // started already
  std::int64_t want = 1;
  const Value* ann = objects.job_object->find_path("metadata.annotations");
  if (ann != nullptr && ann->is_map())
    if (const Value* r = ann->find(kAnnotationReplicas); r != nullptr && r->is_string() && !parse_count(r->as_string(), 10000, want))
      return Error::invalid("metadata.annotations." + std::string(kAnnotationReplicas), r->as_string(),
                            "Deployment " + rendered.namespace_ + "/" + rendered.name + ": not a replica count 1-10000 (edited by hand?)");
  if (want < 1) want = 1;
  // The admitted flavors' node labels, as Kueue would inject them into a Job it unsuspends.
  core::Map selector;
  if (const Value* sel = objects.job_object->find_path("spec.template.spec.nodeSelector"); sel != nullptr && sel->is_map())
    selector = sel->as_map();
  ObservedJob o = observe_job(&*objects.job_object, &*objects.workload);
  for (const auto& [res, flavor] : o.flavors) {
    auto f = client.get(resources::resource_flavors(), {}, flavor);
    if (!f) {
      if (f.error().code == ErrorCode::NotFound) continue;
      return f.error();
    }
    if (const Value* nl = f->find_path("spec.nodeLabels"); nl != nullptr && nl->is_map())
      for (const auto& [k, v] : nl->as_map()) selector.set(k, v);
  }
  core::Map patch{{"spec", core::Map{{"replicas", want}}}};
  if (!selector.empty())
    patch["spec"].mutable_map().set("template", core::Map{{"spec", core::Map{{"nodeSelector", selector}}}});
  auto r = client.patch(resources::deployments(), rendered.namespace_, rendered.name, patch);
  if (!r) return std::move(r).error();
  return {};
}

core::Result<ObservedJob> observe(Client& client, const RenderedJob& rendered) {
  JobObjects objs;
  BUDCORE_TRY_ASSIGN(objs, fetch_job_objects(client, rendered));
  BUDCORE_TRY(start_admitted_service(client, rendered, objs));
  return observe_job(objs.job_object ? &*objs.job_object : nullptr, objs.workload ? &*objs.workload : nullptr);
}

core::Status cancel_job(Client& client, const RenderedJob& rendered) {
  JobObjects objs;
  BUDCORE_TRY_ASSIGN(objs, fetch_job_objects(client, rendered));
  DeleteOptions bg;
  bg.propagation = Propagation::Background;
  for (auto it = rendered.objects.rbegin(); it != rendered.objects.rend(); ++it) {
    auto st = client.remove(resource_for(*it), rendered.namespace_, rendered.name, bg);
    if (!st && st.error().code != ErrorCode::NotFound) return st;
  }
  // A batch Job's Workload is Kueue's; without a garbage collector (or before it runs) it would
  // hold its quota until Kueue notices the owner is gone, so delete it too.
  if (objs.workload && meta_str(*objs.workload, "name") != rendered.name) {
    auto st = client.remove(resources::workloads(), rendered.namespace_, meta_str(*objs.workload, "name"), bg);
    if (!st && st.error().code != ErrorCode::NotFound) return st;
  }
  return {};
}

core::Result<std::vector<ClusterJob>> list_budcore_jobs(Client& client, std::string_view ns, std::vector<std::string>* skipped) {
  std::vector<ClusterJob> out;
  ListOptions lo;
  lo.label_selector = std::string(kLabelManagedBy) + "=" + kManagedByValue;
  for (const Resource* r : {&resources::jobs(), &resources::deployments()}) {
    ObjectList l;
    BUDCORE_TRY_ASSIGN(l, client.list(*r, ns, lo));
    for (auto& obj : l.items) {
      ClusterJob cj;
      cj.kind = r->kind;
      cj.namespace_ = meta_str(obj, "namespace");
      cj.name = meta_str(obj, "name");
      auto id = core::Id::parse(label(obj, kLabelJobId));
      std::string run = label(obj, kLabelRun);
      std::int64_t n = 1;
      bool run_ok = true;
      if (!run.empty()) run_ok = parse_count(run, 1'000'000, n);
      if (!id || !run_ok || n < 1) {
        if (skipped) skipped->push_back(cj.kind + " " + cj.namespace_ + "/" + cj.name + ": labels " + kLabelJobId + "/" + kLabelRun +
                                        " are not a job id and run");
        continue;
      }
      cj.job_id = *id;
      cj.run = n;
      cj.tenant = label(obj, kLabelTenant);
      cj.object = std::move(obj);
      out.push_back(std::move(cj));
    }
  }
  std::sort(out.begin(), out.end(), [](const ClusterJob& a, const ClusterJob& b) {
    return std::make_pair(a.job_id.to_string(), a.run) < std::make_pair(b.job_id.to_string(), b.run);
  });
  return out;
}

}  // namespace budcore::kubernetes
