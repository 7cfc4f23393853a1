// Private: the priced fields of a job, read from a map of job fields (a job document or a
// pipeline JOB step's config) or from a use-case component entry.
#pragma once

#include <string>

#include "budcore/core/result.hpp"
#include "budcore/core/value.hpp"
#include "budcore/cost/estimator.hpp"

#pragma GCC visibility push(hidden)  // private to the library: not exported

namespace budcore::cost::detail {

// Reads job_type, gpu_type, gpu_count, cpu_cores, memory_gb, storage_gb,
// estimated_duration_seconds and priority from `fields` over `defaults`. Errors are prefixed
// with `path`. A templated value ("{{ params.gpus }}") is rendered natively against `params`
// (a pipeline's parameters); with params == nullptr a template is an error.
core::Result<ResourceRequest> read_request(const core::Map& fields, const std::string& path, const core::Value* params,
                                           ResourceRequest defaults);

// gpu_type, gpu_count and resources (Kubernetes requests: cpu, memory) of a contract-4
// component entry over `base`.
core::Result<ResourceRequest> component_defaults(const core::Value& component, const std::string& path,
                                                 ResourceRequest base);

}  // namespace budcore::cost::detail

#pragma GCC visibility pop
