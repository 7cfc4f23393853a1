// schedule::Timeline's result, kept up to date tree by tree. A live event re-simulates one
// cohort tree (~1/10 of the jobs in a typical cluster); rebuilding the whole result from every
// job would cost more than the simulation itself. Trees share no ClusterQueue, so a tree's
// estimates and usage steps can be replaced in place: the old ones are dropped and the new
// ones merged in, in one pass of moves over the result.
#include <algorithm>
#include <iterator>

#include "schedule/timeline_impl.hpp"

namespace budcore::schedule {

using State = Job::State;

namespace {

bool is_accelerator(const std::string& resource) {
  return resource.find("gpu") != std::string::npos || resource.rfind("nvidia.com/", 0) == 0 ||
         resource.rfind("amd.com/", 0) == 0;
}

bool estimate_before(const JobEstimate& a, const JobEstimate& b) {
  return a.start != b.start ? a.start < b.start : a.name < b.name;
}

bool step_before(const UsageStep& a, const UsageStep& b) {
  if (a.at != b.at) return a.at < b.at;
  return std::tie(a.cluster_queue, a.flavor, a.resource) < std::tie(b.cluster_queue, b.flavor, b.resource);
}

// `items` without the entries of the trees in `which` (each entry's tree is in `tree_of`),
// merged with `fresh` (all of tree-set `which`, in any order: it is sorted here, by index, and
// each entry moved once); `tree_of` follows. The merge writes into `spare` (the buffer of the
// call before, emptied): no new buffer of every entry is allocated and paged in on each update.
template <class T, class Less>
void replace_trees(std::vector<T>& items, std::vector<int>& tree_of, std::vector<T>& fresh, const std::vector<int>& fresh_tree,
                   const std::vector<char>& dropped, Less less, std::vector<T>& spare) {
  std::vector<std::size_t> order(fresh.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return less(fresh[a], fresh[b]); });
  std::vector<T> out = std::move(spare);
  out.clear();
  std::vector<int> out_tree;
  out.reserve(items.size() + fresh.size());
  out_tree.reserve(items.size() + fresh.size());
  std::size_t i = 0, k = 0;
  auto skip_dropped = [&] {
    while (i < items.size() && dropped[static_cast<std::size_t>(tree_of[i])] != 0) ++i;
  };
  for (skip_dropped(); i < items.size() || k < order.size(); skip_dropped()) {
    if (k == order.size() || (i < items.size() && !less(fresh[order[k]], items[i]))) {
      out.push_back(std::move(items[i]));
      out_tree.push_back(tree_of[i++]);
    } else {
      out.push_back(std::move(fresh[order[k]]));
      out_tree.push_back(fresh_tree[order[k++]]);
    }
  }
  spare = std::move(items);
  spare.clear();
  items = std::move(out);
  tree_of = std::move(out_tree);
}

}  // namespace

// Shown on the timeline: it ran or runs (a job that ended without ever running is not).
bool Timeline::Impl::shown(const Job& j) {
  if (j.fact == Fact::Cancelled && j.runs.empty()) return false;
  if (j.state == State::Done) return !j.runs.empty();
  return j.state == State::Running;
}

void Timeline::Impl::collect(const std::set<int>& which) {
  std::vector<JobEstimate> estimates;
  std::vector<int> estimate_tree;
  std::vector<UsageStep> steps;
  std::vector<int> step_tree;
  struct Delta {
    core::Timestamp at;
    const UsageKey* key;
    std::int64_t v;
  };
  std::vector<Delta> deltas;
  for (int t : which) {
    Tree& tree = trees[static_cast<std::size_t>(t)];
    tree.last_end.reset();
    deltas.clear();
    estimates.reserve(estimates.size() + tree.jobs.size());  // moved once, not again as it grows
    estimate_tree.reserve(estimates.capacity());
    for (int ji : tree.jobs) {
      // The simulation's outputs move into the estimate: nothing else reads them, and the next
      // simulation of this tree sets them again.
      Job& j = jobs[static_cast<std::size_t>(ji)];
      result.never.erase(j.name);
      result.blocked_behind.erase(j.name);
      if (j.state == State::Never && !(j.fact == Fact::Cancelled && j.runs.empty())) {
        result.never[j.name] = j.never_reason;
        if (!j.blocked_behind.head.empty()) result.blocked_behind[j.name] = j.blocked_behind;
      }
      if (!shown(j)) continue;
      JobEstimate e;
      e.name = j.name;
      e.key = j.key;
      e.cluster_queue = std::move(j.cluster_queue);
      e.flavors = std::move(j.flavors);
      e.start = j.start;
      e.end = j.end;
      if (j.in.deadline) e.deadline_met = j.end <= *j.in.deadline;
      e.preempted_at = std::move(j.preempted_at);
      e.running = j.fact == Fact::Running;
      e.finished = ended(j.fact);
      e.wait = j.wait;
      e.wait_detail = std::move(j.wait_detail);
      e.pipeline = j.in.pipeline;
      e.label = j.in.label.empty() ? e.name : j.in.label;
      e.priority = j.in.workload.priority;
      for (const auto& run : j.runs)
        for (const auto& [k, v] : run.usage) {
          deltas.push_back({run.start, &k, v});
          deltas.push_back({run.end, &k, -v});
        }
      if (!j.runs.empty())
        for (const auto& [k, v] : j.runs.back().usage)
          if (is_accelerator(std::get<2>(k))) e.gpus[std::get<2>(k)] += v / 1000;
      tree.last_end = tree.last_end ? std::max(*tree.last_end, j.end) : j.end;
      estimates.push_back(std::move(e));
      estimate_tree.push_back(t);
    }
    // Usage over time: the net change of each (queue, flavor, resource) at each instant.
    std::sort(deltas.begin(), deltas.end(), [](const Delta& a, const Delta& b) {
      return a.at != b.at ? a.at < b.at : *a.key < *b.key;
    });
    std::map<UsageKey, std::int64_t> level;
    for (std::size_t i = 0; i < deltas.size();) {
      std::int64_t net = 0;
      std::size_t k = i;
      for (; k < deltas.size() && deltas[k].at == deltas[i].at && *deltas[k].key == *deltas[i].key; ++k) net += deltas[k].v;
      if (net != 0) {
        const UsageKey& key = *deltas[i].key;
        std::int64_t& l = level[key];
        l += net;
        steps.push_back({deltas[i].at, std::get<0>(key), std::get<1>(key), std::get<2>(key), l});
        step_tree.push_back(t);
      }
      i = k;
    }
  }
  std::vector<char> dropped(trees.size(), 0);
  for (int t : which) dropped[static_cast<std::size_t>(t)] = 1;
  replace_trees(result.jobs, result_job_tree, estimates, estimate_tree, dropped, estimate_before, spare_jobs);
  replace_trees(result.usage, result_usage_tree, steps, step_tree, dropped, step_before, spare_usage);

  // Jobs without a queue can never run; a cancelled one is simply gone.
  for (int ji : treeless) {
    const Job& j = jobs[static_cast<std::size_t>(ji)];
    if (j.fact == Fact::Cancelled) result.never.erase(j.name);
    else result.never[j.name] = j.no_tree_reason;
  }
  // What depends on `now` is computed again for every tree (deadlines read only the jobs that
  // have one).
  result.now = now;
  core::Timestamp last = now;
  for (const Tree& tree : trees)
    if (tree.last_end) last = std::max(last, *tree.last_end);
  result.makespan = result.jobs.empty() ? core::Duration() : last - now;
  result.warnings.clear();
  for (int ji : with_deadline) {
    const Job& j = jobs[static_cast<std::size_t>(ji)];
    if (shown(j) && *j.in.deadline < now && !ended(j.fact))
      result.warnings.push_back(j.name + ": deadline is before now; it cannot be met");
  }
  for (const auto& t : trees) result.warnings.insert(result.warnings.end(), t.warnings.begin(), t.warnings.end());
}

}  // namespace budcore::schedule
