// Entry points of the per-layer binding files. module.cpp calls them in layer order; a new
// layer adds bind_<layer>.cpp, one declaration here and one call in module.cpp.
#pragma once

#include <pybind11/pybind11.h>

#include "budcore/schedule/fwd.hpp"

namespace budcore::bindings {

namespace py = pybind11;

void bind_errors(py::module_& m);  // the exception hierarchy; must run first
void bind_core(py::module_& m);    // Quantity, Money, JSON helpers, __version__
void bind_job(py::module_& m);     // Job
void bind_templates(py::module_& m);  // Template, render
void bind_quota(py::module_& m);      // QuotaConfig, AdmissionEngine, quota_simulate
void bind_pipeline(py::module_& m);   // Pipeline, PipelineIssue
void bind_store(py::module_& m);      // Store, StoredJob, open_store
void bind_schedule(py::module_& m);   // ScheduleTimeline, schedule_replay
void bind_platform(py::module_& m);   // PlatformHandle, platform_open, platform_simulate
void bind_cost(py::module_& m);       // PriceBook and the cost_* functions budcore.cost wraps
void bind_usecase(py::module_& m);    // UsecaseRegistry (budcore.usecases wraps it)
void bind_gpu(py::module_& m);        // gpu_replay (budcore.gpu wraps it)
void bind_serverless(py::module_& m); // serverless_simulate (budcore.serverless wraps it)
void bind_kueue(py::module_& m);      // the Kueue companion's checks (budcore.kueue wraps them)

// A read-only ScheduleSnapshot of a timeline's result (Platform.schedule; bind_schedule.cpp).
py::object schedule_snapshot(schedule::TimelineResult result);

}  // namespace budcore::bindings
