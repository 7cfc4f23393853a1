// The simulated cluster's tests: a workload request of tenant A for a job, and every event the
// cluster has to give.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "budcore/backend/sim_cluster.hpp"
#include "budcore/quota/job_workload.hpp"
#include "platform/platform_fixture.hpp"

namespace budcore::testing {

// Run `run` of `j` (a new id when it has none) as tenant A, queued at `seq`.
inline backend::WorkloadRequest sim_request(job::Job j, std::int64_t run = 1, std::int64_t seq = 1) {
  j.id = j.id.is_nil() ? core::Id::generate() : j.id;
  j.tenant_id = tenant_a();
  backend::WorkloadRequest r;
  r.tenant = tenant_a();
  r.run = run;
  r.queue_seq = seq;
  r.workload = quota::workload_for(j, seq).value();
  r.job = std::move(j);
  return r;
}

inline std::vector<backend::ClusterEvent> drain(backend::SimCluster& c) {
  std::vector<backend::ClusterEvent> out;
  while (c.poll(out, 1000).value() == 1000) {
  }
  return out;
}

}  // namespace budcore::testing
