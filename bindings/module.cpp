#include "bindings.hpp"

PYBIND11_MODULE(_core, m) {
  m.doc() = "The C++ library behind the budcore package: quantities, money, jobs, quotas and admission, pipelines, templates, stores, cost, schedules, use cases, the platform, GPU placement and serverless endpoints";
  budcore::bindings::bind_errors(m);
  budcore::bindings::bind_core(m);
  budcore::bindings::bind_job(m);
  budcore::bindings::bind_templates(m);
  budcore::bindings::bind_quota(m);
  budcore::bindings::bind_pipeline(m);
  budcore::bindings::bind_store(m);
  budcore::bindings::bind_schedule(m);
  budcore::bindings::bind_platform(m);
  budcore::bindings::bind_cost(m);
  budcore::bindings::bind_usecase(m);
  budcore::bindings::bind_gpu(m);
  budcore::bindings::bind_serverless(m);
  budcore::bindings::bind_kueue(m);
}
