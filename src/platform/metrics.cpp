// Prometheus text exposition (format 0.0.4) of the Platform's counters, histograms and gauges.
#include "platform/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>

namespace budcore::platform {
namespace {

struct Description {
  std::string_view name;
  std::string_view type;
  std::string_view help;
};

// Every metric the Platform exposes (docs/platform.md "Metrics"); Kueue's
// scheduling metrics keep Kueue's own names.
constexpr Description kDescriptions[] = {
    {"job_state_transitions_total", "counter", "Job status transitions, by job type and from/to state."},
    {"job_queue_wait_seconds", "histogram", "Time from entering QUEUED to admission (SCHEDULED)."},
    {"job_duration_seconds", "histogram", "Time a run spent RUNNING, by how it ended."},
    {"job_wait_time_seconds", "histogram", "Queue wait by job source (DIRECT, PIPELINE, USECASE)."},
    {"job_failures_total", "counter", "Failed runs, by failure reason (Error, Timeout, Rejected, Lost)."},
    {"job_retries_total", "counter", "Runs started again after a failure."},
    {"job_preemptions_total", "counter", "Runs preempted, by reason (Preempted, Evicted)."},
    {"jobs_total", "counter", "Jobs submitted (status=\"submitted\") and ended (completed, failed, cancelled), by source and type."},
    {"jobs_created_from_steps_total", "counter", "Jobs created by pipeline JOB steps."},
    {"pipeline_executions_total", "counter", "Pipeline runs that ended, by status."},
    {"pipeline_duration_seconds", "histogram", "Pipeline run duration, by pipeline and status."},
    {"step_executions_total", "counter", "Pipeline steps that ended, by step type and status."},
    {"step_duration_seconds", "histogram", "Pipeline step duration (first attempt to end), by step type and status."},
    {"kueue_admission_wait_time_seconds", "histogram", "Time from queued to admitted, by ClusterQueue."},
    {"kueue_evicted_workloads_total", "counter", "Workloads evicted, by ClusterQueue and reason."},
    {"kueue_admitted_workloads_total", "counter", "Workloads admitted, by ClusterQueue."},
    {"kueue_cluster_queue_resource_usage", "gauge", "Quota used, by ClusterQueue, flavor and resource."},
    {"kueue_cluster_queue_nominal_quota", "gauge", "Nominal quota, by ClusterQueue, flavor and resource."},
    {"kueue_pending_workloads", "gauge", "Runs waiting for admission (all ClusterQueues)."},
    {"budcore_live_jobs", "gauge", "Jobs the platform drives, by status."},
    {"budcore_gpu_node_fragmentation_milli", "gauge", "FGD's expected fragmentation of a node (milli-GPU), by flavor, node and model."},
    {"budcore_gpu_fragmentation_milli", "gauge", "FGD's expected fragmentation of a flavor's nodes together (milli-GPU)."},
    {"budcore_gpu_fragmentation_share", "gauge", "A flavor's expected fragmentation as a share of its free GPU capacity."},
    {"budcore_gpu_unallocated_share", "gauge", "A flavor's free GPU capacity as a share of its total."},
    {"budcore_gpu_capacity_milli", "gauge", "A flavor's GPU capacity (milli-GPU), by state (total, allocated, reserved, free)."},
    {"budcore_gpu_largest_gang", "gauge", "The most free whole GPUs on one node, by flavor and GPU model."},
    {"budcore_gpu_waiting_for_placement", "gauge", "Runs the quota admitted that no node can take yet."},
    {"budcore_deadline_misses_total", "counter", "Jobs whose deadline passed before they ended."},
    {"budcore_commits_total", "counter", "Store transactions that applied cluster events (group commits)."},
    {"budcore_events_applied_total", "counter", "Cluster events applied."},
    {"budcore_ha_leader", "gauge", "1 while this replica leads, 0 while it follows, by replica."},
    {"budcore_ha_epoch", "gauge", "The lease epoch this replica leads under or last saw."},
    {"budcore_ha_leader_changes_total", "counter", "Times this replica took the lease."},
    {"budcore_ha_stepped_down_total", "counter", "Times this replica stepped down (a fenced write refused, a lease lost)."},
    {"budcore_ha_renewal_seconds", "histogram", "How long a lease renewal or attempt took."},
    {"budcore_audit_anchors_total", "counter", "Audit chain heads published to the anchor webhook, by outcome."},
    {"budcore_audit_denials_unrecorded_total", "counter", "Denials not written to the audit log (over the per-tenant bound)."},
    {"budcore_retention_compactions_total", "counter", "Store compactions by retention, by outcome."},
    {"budcore_retention_removed_total", "counter", "Rows retention removed, by log (events, audit, usage)."},
    {"budcore_serverless_cold_starts_total", "counter", "Worker jobs a serverless endpoint submitted, by endpoint and owner tenant."},
    {"budcore_serverless_failed_starts_total", "counter", "Workers cancelled because their warm-up passed the warm-up timeout, by endpoint."},
    {"budcore_serverless_workers_lost_total", "counter", "Worker jobs that ended on their own (failed, stopped by a budget), by endpoint."},
    {"budcore_serverless_workers_stopped_total", "counter", "Worker jobs cancelled by scaling down, by endpoint."},
    {"budcore_serverless_preemptions_total", "counter", "Requests sent back to the queue for higher-priority ones, by endpoint."},
    {"budcore_serverless_workers", "gauge", "An endpoint's workers, by state (queued, starting, ready, busy)."},
    {"budcore_serverless_queue_depth", "gauge", "Requests waiting in an endpoint's queue."},
    {"budcore_serverless_in_flight", "gauge", "Requests an endpoint's workers are processing."},
};

// Seconds: from one second to a week (queue waits and run lengths of GPU jobs).
constexpr double kBounds[] = {1, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600, 86400, 604800};
constexpr std::size_t kBucketCount = std::size(kBounds);

std::string escape(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

std::string number(double v) {
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<long long>(v));
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string with_label(const std::string& labels, std::string_view extra) {
  if (labels.empty()) return "{" + std::string(extra) + "}";
  return labels.substr(0, labels.size() - 1) + "," + std::string(extra) + "}";
}

}  // namespace

std::string Metrics::key(const Labels& labels) {
  if (labels.empty()) return {};
  std::string out = "{";
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (i) out += ",";
    out += labels[i].first + "=\"" + escape(labels[i].second) + "\"";
  }
  return out + "}";
}

void Metrics::count(std::string_view name, const Labels& labels, double by) {
  counters_[std::string(name)][key(labels)] += by;
}

void Metrics::observe(std::string_view name, const Labels& labels, double value) {
  Histogram& h = histograms_[std::string(name)][key(labels)];
  if (h.buckets.empty()) h.buckets.assign(kBucketCount, 0);
  for (std::size_t i = 0; i < kBucketCount; ++i)
    if (value <= kBounds[i]) {
      ++h.buckets[i];
      break;
    }
  h.sum += value;
  ++h.count;
}

void Metrics::gauge(std::string_view name, const Labels& labels, double value) {
  gauges_[std::string(name)][key(labels)] = value;
}

void Metrics::clear_gauges() { gauges_.clear(); }

bool Metrics::report(std::string_view name, const Labels& labels, double value) {
  for (const auto& d : kDescriptions) {
    if (d.name != name) continue;
    if (d.type == "counter") counters_[std::string(name)][key(labels)] = value;
    else if (d.type == "gauge") gauges_[std::string(name)][key(labels)] = value;
    else return false;
    return true;
  }
  return false;
}

std::string Metrics::render() {
  if (collector_) collector_(*this);
  std::string out;
  for (const auto& d : kDescriptions) {
    std::string name(d.name);
    out += "# HELP " + name + " " + std::string(d.help) + "\n";
    out += "# TYPE " + name + " " + std::string(d.type) + "\n";
    if (d.type == "counter") {
      if (auto it = counters_.find(name); it != counters_.end())
        for (const auto& [labels, v] : it->second) out += name + labels + " " + number(v) + "\n";
    } else if (d.type == "gauge") {
      if (auto it = gauges_.find(name); it != gauges_.end())
        for (const auto& [labels, v] : it->second) out += name + labels + " " + number(v) + "\n";
    } else if (auto it = histograms_.find(name); it != histograms_.end()) {
      for (const auto& [labels, h] : it->second) {
        std::uint64_t cumulative = 0;
        for (std::size_t i = 0; i < kBucketCount; ++i) {
          cumulative += h.buckets[i];
          out += name + "_bucket" + with_label(labels, "le=\"" + number(kBounds[i]) + "\"") + " " +
                 std::to_string(cumulative) + "\n";
        }
        out += name + "_bucket" + with_label(labels, "le=\"+Inf\"") + " " + std::to_string(h.count) + "\n";
        out += name + "_sum" + labels + " " + number(h.sum) + "\n";
        out += name + "_count" + labels + " " + std::to_string(h.count) + "\n";
      }
    }
  }
  return out;
}

}  // namespace budcore::platform
