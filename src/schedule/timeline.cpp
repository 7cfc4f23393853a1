// schedule::Timeline: building the job graph and cohort-tree partition, live events, results.
#include <algorithm>
#include <functional>

#include "schedule/timeline_impl.hpp"

namespace budcore::schedule {

using core::Error;
using core::Timestamp;
using State = Job::State;

std::string_view to_string(WaitReason r) noexcept {
  switch (r) {
    case WaitReason::None: return "";
    case WaitReason::Quota: return "quota";
    case WaitReason::Dependency: return "dependency";
    case WaitReason::Window: return "window";
    case WaitReason::Placement: return "placement";
  }
  return "";
}

core::Status Timeline::Impl::build(TimelineInput input) {
  BUDCORE_TRY(quota::validate(input.config));
  if (input.horizon < core::Duration()) return Error::invalid("horizon_seconds", "", "the horizon must not be negative");
  config = std::move(input.config);
  options = input.engine_options;
  now = input.now;
  horizon = input.horizon;
  // Cohort trees: every ClusterQueue belongs to the tree of its root cohort (or is alone).
  std::map<std::string, std::string> parent;
  for (const auto& c : config.cohorts)
    if (c.parent) parent[c.name] = *c.parent;
  auto root_of = [&](std::string name) {
    for (std::size_t steps = 0; steps <= parent.size(); ++steps) {
      auto it = parent.find(name);
      if (it == parent.end()) break;
      name = it->second;
    }
    return name;
  };
  std::map<std::string, int> tree_of_root;
  auto tree_for = [&](const std::string& root) {
    auto [it, inserted] = tree_of_root.emplace(root, static_cast<int>(trees.size()));
    if (inserted) {
      Tree t;
      t.config.resource_flavors = config.resource_flavors;
      t.config.priority_classes = config.priority_classes;
      trees.push_back(std::move(t));
    }
    return it->second;
  };
  for (const auto& cq : config.cluster_queues) {
    int t = tree_for(cq.cohort ? "cohort:" + root_of(*cq.cohort) : "queue:" + cq.name);
    trees[t].config.cluster_queues.push_back(cq);
    tree_of_cq[cq.name] = t;
  }
  for (const auto& c : config.cohorts) {
    auto it = tree_of_root.find("cohort:" + root_of(c.name));
    if (it != tree_of_root.end()) trees[it->second].config.cohorts.push_back(c);
  }
  for (const auto& lq : config.local_queues) trees[tree_of_cq.at(lq.cluster_queue)].config.local_queues.push_back(lq);

  // Output names: plain unless a name occurs in more than one namespace (as `quota simulate`).
  std::map<std::string, std::set<std::string>> namespaces;
  for (const auto& j : input.jobs) namespaces[j.workload.name].insert(j.workload.namespace_);
  std::vector<int> added;
  std::vector<std::string> paths;
  for (std::size_t i = 0; i < input.jobs.size(); ++i) {
    std::string path = "workloads[" + std::to_string(i) + "]";
    bool plain = namespaces[input.jobs[i].workload.name].size() == 1;
    BUDCORE_TRY(add_job(std::move(input.jobs[i]), path));
    if (!plain) {
      Job& j = jobs.back();
      by_name.erase(j.name);
      j.name = j.key;
    }
    added.push_back(static_cast<int>(jobs.size()) - 1);
    paths.push_back(path);
  }
  return link(added, paths);
}

core::Status Timeline::Impl::add_job(JobInput in, const std::string& path) {
  Job j;
  j.key = in.workload.key();
  j.name = in.workload.name;
  if (in.workload.name.empty()) return Error::invalid(path + ".name", "", "workload name must not be empty");
  if (by_name.count(j.key)) return Error::invalid(path + ".name", j.key, "duplicate workload");
  if (in.duration < core::Duration()) return Error::invalid(path + ".duration_seconds", "", "must not be negative");
  if (in.deadline && in.deadline->unix_nanos() < 0) return Error::invalid(path + ".deadline", "", "must not be negative");
  if (in.window) {
    auto zone = pipeline::TimeZone::load(in.window->zone);
    if (!zone) return Error::invalid(path + ".window.zone", in.window->zone, zone.error().message);
    j.clock.emplace(*in.window, std::move(*zone));
  }
  if (in.workload.admitted) {
    auto t = tree_of_cq.find(in.workload.admitted->cluster_queue);
    if (t == tree_of_cq.end())
      return Error::invalid(path + ".admitted.cluster_queue", in.workload.admitted->cluster_queue, "unknown cluster queue");
    j.tree = t->second;
    j.fact = Fact::Running;
  } else {
    for (const auto& lq : config.local_queues)
      if (lq.namespace_ == in.workload.namespace_ && lq.name == in.workload.queue) j.tree = tree_of_cq.at(lq.cluster_queue);
    if (j.tree < 0) j.no_tree_reason = "LocalQueue " + in.workload.namespace_ + "/" + in.workload.queue + " doesn't exist";
  }
  // The engine's own checks (pod sets, counts, requests, admitted flavors), on an empty engine.
  if (j.tree >= 0) {
    auto probe = probes.find(j.tree);
    if (probe == probes.end()) {
      auto e = quota::AdmissionEngine::create(trees[j.tree].config, options);
      if (!e) return std::move(e).error();
      probe = probes.emplace(j.tree, std::move(*e)).first;
    }
    if (auto st = probe->second.add_workload(in.workload); !st) return std::move(st).error().at(path);
    (void)(in.workload.admitted ? probe->second.finish(j.key) : probe->second.withdraw(j.key));
  }
  j.in = std::move(in);
  int id = static_cast<int>(jobs.size());
  by_name[j.key] = id;
  if (!by_name.count(j.name)) by_name[j.name] = id;
  if (j.tree >= 0) {
    trees[j.tree].jobs.push_back(id);
    trees[j.tree].job_of_key[j.key] = id;
  }
  else {
    j.state = State::Never;
    treeless.push_back(id);
  }
  if (j.in.deadline) with_deadline.push_back(id);
  jobs.push_back(std::move(j));
  return {};
}

core::Status Timeline::Impl::link(const std::vector<int>& added, const std::vector<std::string>& paths) {
  for (std::size_t a = 0; a < added.size(); ++a) {
    Job& j = jobs[added[a]];
    for (std::size_t k = 0; k < j.in.depends_on.size(); ++k) {
      const std::string& dep = j.in.depends_on[k];
      std::string field = paths[a] + ".depends_on[" + std::to_string(k) + "]";
      auto it = by_name.find(dep.find('/') == std::string::npos ? j.in.workload.namespace_ + "/" + dep : dep);
      if (it == by_name.end()) it = by_name.find(dep);
      if (it == by_name.end()) return Error::invalid(field, dep, "unknown workload");
      if (it->second == added[a]) return Error::invalid(field, dep, "dependency cycle: " + j.name + " -> " + j.name);
      j.deps.push_back(it->second);
      jobs[it->second].dependents.push_back(added[a]);
      int from = jobs[it->second].tree;
      if (from >= 0 && j.tree >= 0 && from != j.tree) trees[from].dependent_trees.insert(j.tree);
    }
  }
  // Cycles: an iterative depth-first search names the first one it meets, in order.
  std::vector<char> color(jobs.size(), 0);
  for (std::size_t a = 0; a < added.size(); ++a) {
    int root = added[a];
    if (color[root]) continue;
    std::vector<std::pair<int, std::size_t>> stack{{root, 0}};
    color[root] = 1;
    while (!stack.empty()) {
      auto& [u, next] = stack.back();
      if (next == jobs[u].deps.size()) {
        color[u] = 2;
        stack.pop_back();
        continue;
      }
      int v = jobs[u].deps[next++];
      if (color[v] == 1) {
        std::string cycle = jobs[v].name;
        bool on = false;
        for (const auto& [w, _] : stack) {
          if (w == v) on = true;
          else if (on) cycle += " -> " + jobs[w].name;
        }
        cycle += " -> " + jobs[v].name;
        // Name the dependency of the first workload of the cycle as written.
        std::string field = paths[a] + ".depends_on";
        for (std::size_t b = 0; b < added.size(); ++b)
          if (added[b] == v) field = paths[b] + ".depends_on";
        return Error::invalid(field, cycle, "dependency cycle: " + cycle);
      }
      if (color[v] == 0) {
        color[v] = 1;
        stack.emplace_back(v, 0);
      }
    }
  }
  return {};
}

std::set<int> Timeline::Impl::affected(int job) const {
  std::set<int> out;
  std::vector<int> todo;
  if (jobs[job].tree >= 0) todo.push_back(jobs[job].tree);
  for (int d : jobs[job].dependents)
    if (jobs[d].tree >= 0) todo.push_back(jobs[d].tree);
  while (!todo.empty()) {
    int t = todo.back();
    todo.pop_back();
    if (!out.insert(t).second) continue;
    for (int d : trees[t].dependent_trees) todo.push_back(d);
  }
  return out;
}

core::Result<int> Timeline::Impl::job_of(std::string_view name) const {
  auto it = by_name.find(std::string(name));
  if (it == by_name.end()) return Error::make(core::ErrorCode::NotFound, "unknown job " + std::string(name), "name");
  return it->second;
}

core::Status Timeline::Impl::move_now(Timestamp at) {
  if (at < now) return Error::invalid("at", std::to_string(at.unix_seconds()), "an event cannot happen before the timeline's now");
  now = at;
  return {};
}

// ---- public surface

Timeline::Timeline(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Timeline::Timeline(Timeline&&) noexcept = default;
Timeline& Timeline::operator=(Timeline&&) noexcept = default;
Timeline::~Timeline() = default;

core::Result<Timeline> Timeline::create(TimelineInput input) {
  auto impl = std::make_unique<Impl>();
  BUDCORE_TRY(impl->build(std::move(input)));
  std::set<int> all;
  for (int t = 0; t < static_cast<int>(impl->trees.size()); ++t) all.insert(t);
  BUDCORE_TRY(impl->simulate(all));
  return Timeline(std::move(impl));
}

const TimelineResult& Timeline::result() const { return impl_->result; }
int Timeline::trees_simulated() const { return impl_->last_trees; }
const quota::QuotaConfig& Timeline::config() const { return impl_->config; }

const JobEstimate* Timeline::find(std::string_view name) const {
  for (const auto& e : impl_->result.jobs)
    if (e.name == name || e.key == name) return &e;
  return nullptr;
}

// One live fact about an existing job: checks that the job is in one of `allowed` states (else
// Conflict, changing nothing), moves `now`, applies the fact and re-simulates what it reaches.
core::Status Timeline::Impl::fact(std::string_view name, Timestamp at, std::initializer_list<Fact> allowed,
                                  const char* conflict, const std::function<core::Status(Job&)>& apply) {
  int ji;
  BUDCORE_TRY_ASSIGN(ji, job_of(name));
  Job& j = jobs[ji];
  if (std::find(allowed.begin(), allowed.end(), j.fact) == allowed.end())
    return Error::make(core::ErrorCode::Conflict, "job " + j.name + " " + conflict, "name");
  if (at < now) return move_now(at);
  BUDCORE_TRY(apply(j));
  now = at;
  return simulate(affected(ji));
}

core::Status Timeline::started(std::string_view name, Timestamp at, const quota::Admission& admission) {
  return impl_->fact(name, at, {Fact::Pending}, "is not pending", [&](Job& j) -> core::Status {
    auto tree = impl_->tree_of_cq.find(admission.cluster_queue);
    if (tree == impl_->tree_of_cq.end() || tree->second != j.tree)
      return Error::invalid("admission.cluster_queue", admission.cluster_queue, "not the cluster queue of the job's local queue");
    j.fact = Fact::Running;
    j.in.workload.admitted = admission;
    j.in.started_at = at;
    return {};
  });
}

core::Status Timeline::finished(std::string_view name, Timestamp at) {
  return impl_->fact(name, at, {Fact::Running}, "is not running", [&](Job& j) -> core::Status {
    j.fact = Fact::Finished;
    j.actual_end = at;
    return {};
  });
}

core::Status Timeline::failed(std::string_view name, Timestamp at) {
  return impl_->fact(name, at, {Fact::Running, Fact::Pending}, "has already ended", [&](Job& j) -> core::Status {
    j.fact = Fact::Failed;
    j.actual_end = at;
    return {};
  });
}

core::Status Timeline::preempted(std::string_view name, Timestamp at) {
  return impl_->fact(name, at, {Fact::Running}, "is not running", [&](Job& j) -> core::Status {
    j.fact = Fact::Pending;
    j.in.workload.admitted.reset();
    j.actual_preemptions.push_back(at);
    return {};
  });
}

core::Status Timeline::cancelled(std::string_view name, Timestamp at) {
  return impl_->fact(name, at, {Fact::Running, Fact::Pending}, "has already ended", [&](Job& j) -> core::Status {
    j.fact = Fact::Cancelled;
    j.actual_end = at;
    return {};
  });
}

core::Status Timeline::submitted(JobInput job, Timestamp at) {
  if (at < impl_->now) return impl_->move_now(at);
  if (!job.submit_at || *job.submit_at < at) job.submit_at = at;
  bool clash = false;
  for (const Job& j : impl_->jobs) clash = clash || (j.in.workload.name == job.workload.name && j.key != job.workload.key());
  BUDCORE_TRY(impl_->add_job(std::move(job), "job"));
  int ji = static_cast<int>(impl_->jobs.size()) - 1;
  if (clash) impl_->jobs[ji].name = impl_->jobs[ji].key;
  if (auto st = impl_->link({ji}, {"job"}); !st) {
    // Nothing half-applied: forget the job again.
    Job& j = impl_->jobs[ji];
    for (int d : j.deps) {
      auto& ds = impl_->jobs[d].dependents;
      ds.erase(std::remove(ds.begin(), ds.end(), ji), ds.end());
    }
    if (j.tree >= 0) {
      impl_->trees[j.tree].jobs.pop_back();
      impl_->trees[j.tree].job_of_key.erase(j.key);
    }
    for (auto* list : {&impl_->treeless, &impl_->with_deadline})
      if (!list->empty() && list->back() == ji) list->pop_back();
    impl_->by_name.erase(j.key);
    if (auto it = impl_->by_name.find(j.name); it != impl_->by_name.end() && it->second == ji) impl_->by_name.erase(it);
    impl_->jobs.pop_back();
    return st;
  }
  BUDCORE_TRY(impl_->move_now(at));
  return impl_->simulate(impl_->affected(ji));
}

core::Status Timeline::advance(Timestamp at) {
  BUDCORE_TRY(impl_->move_now(at));
  std::set<int> all;
  for (int t = 0; t < static_cast<int>(impl_->trees.size()); ++t) all.insert(t);
  return impl_->simulate(all);
}

}  // namespace budcore::schedule
