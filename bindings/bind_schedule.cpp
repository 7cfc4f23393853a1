// The schedule layer for Python (budcore.schedule wraps these): a live timeline over
// budcore::schedule::Timeline, Kueue's perf replay and the HTML view. Scenarios and events use
// the contract-6 JSON shapes and go through the library's own readers, so Python sees the same
// defaults and error paths as the CLI. Simulations release the GIL.
#include <pybind11/stl.h>

#include <string>

#include "bindings.hpp"
#include "budcore/core/json.hpp"
#include "budcore/schedule/estimate.hpp"
#include "budcore/schedule/replay.hpp"
#include "budcore/schedule/view.hpp"
#include "casters.hpp"
#include "errors.hpp"
#include "pytypes.hpp"

namespace budcore::bindings {
namespace {

using core::Value;

// A dict (or JSON text) as a document Value.
Value document_of(const py::handle& obj, const char* what) {
  if (py::isinstance<py::str>(obj)) return unwrap(core::parse_json(obj.cast<std::string>()));
  if (!py::isinstance<py::dict>(obj))
    throw py::type_error(std::string(what) + " must be a dict or JSON text, not " +
                         py::type::handle_of(obj).attr("__name__").cast<std::string>());
  return to_value(obj);
}

// Device lanes (docs/schedule.md "Pictures") as [{name, flavor, resource, blocks}].
JsonDictList lanes_of(const schedule::TimelineResult& result) {
  JsonDictList out;
  for (const auto& lane : schedule::assign_lanes(result)) {
    py::list blocks;
    for (const auto& b : lane.blocks)
      blocks.append(to_python(Value(core::Map{{"job", Value(b.job)},
                                              {"start", schedule::seconds_value(b.start)},
                                              {"end", schedule::seconds_value(b.end)},
                                              {"estimated", Value(b.estimated)}})));
    JsonDict d;
    d["name"] = lane.name;
    d["flavor"] = lane.flavor;
    d["resource"] = lane.resource;
    d["blocks"] = blocks;
    out.append(d);
  }
  return out;
}

// A timeline's result without the timeline (what the platform computed): read, draw, no events.
class PySnapshot {
 public:
  explicit PySnapshot(schedule::TimelineResult r) : result_(std::move(r)) {}
  JsonDict result(bool details) const { return hinted<JsonDict>(to_python(schedule::to_value(result_, {-1, details}))); }
  void apply(const JsonDocArg&) {
    throw PyError(core::Error::make(core::ErrorCode::Unsupported,
                                    "a platform's timeline is read-only: the platform revises it as its jobs change "
                                    "(call Platform.schedule() again)",
                                    "event"));
  }
  JsonDictList lanes() const { return lanes_of(result_); }
  std::string html(const std::string& title) const { return schedule::render_html(result_, {title}); }
  int trees_simulated() const { return 0; }

 private:
  schedule::TimelineResult result_;
};

class PyTimeline {
 public:
  explicit PyTimeline(const JsonDocArg& scenario) : timeline_(create(document_of(scenario, "scenario"))) {}

  JsonDict result(bool details) const { return hinted<JsonDict>(to_python(schedule::to_value(timeline_.result(), {-1, details}))); }

  void apply(const JsonDocArg& event) {
    Value ev = document_of(event, "event");
    core::Status st = [&] {
      py::gil_scoped_release release;
      return schedule::apply_event(timeline_, ev);
    }();
    unwrap(std::move(st));
  }

  JsonDictList lanes() const { return lanes_of(timeline_.result()); }

  std::string html(const std::string& title) const { return schedule::render_html(timeline_.result(), {title}); }
  int trees_simulated() const { return timeline_.trees_simulated(); }

 private:
  static schedule::Timeline create(const Value& doc) {
    core::Result<schedule::Timeline> tl = [&]() -> core::Result<schedule::Timeline> {
      py::gil_scoped_release release;
      auto in = schedule::parse_estimate_document(doc);
      if (!in) return std::move(in).error();
      return schedule::Timeline::create(std::move(*in));
    }();
    return unwrap(std::move(tl));
  }

  schedule::Timeline timeline_;
};

JsonDict replay(const JsonDocArg& config) {
  schedule::ReplayConfig cfg;
  if (py::isinstance<py::str>(config) && config.cast<std::string>() == "baseline") {
    cfg = schedule::kueue_baseline();
  } else {
    cfg = unwrap(schedule::parse_replay_config(document_of(config, "config")));
  }
  core::Result<Value> out = [&]() -> core::Result<Value> {
    py::gil_scoped_release release;
    auto r = schedule::replay(cfg);
    if (!r) return std::move(r).error();
    return schedule::to_value(*r);
  }();
  return hinted<JsonDict>(to_python(unwrap(std::move(out))));
}

}  // namespace

py::object schedule_snapshot(schedule::TimelineResult result) { return py::cast(PySnapshot(std::move(result))); }

void bind_schedule(py::module_& m) {
  py::class_<PyTimeline>(m, "ScheduleTimeline",
                         "Estimated start and end of every job under the quota rules (docs/cli.md contract 6). "
                         "Built from a scenario dict or JSON; events revise it. Not thread-safe.")
      .def(py::init<const JsonDocArg&>(), py::arg("scenario"), "A live schedule timeline from a scenario dict (quota config, jobs, now, horizon).")
      .def("result", &PyTimeline::result, py::arg("details") = true,
           "{jobs, never, makespan} (with details: wait reasons, warnings, utilization).")
      .def("apply", &PyTimeline::apply, py::arg("event"),
           "Apply a live event: {type: started|finished|failed|preempted|cancelled|submitted|advance, name, at, ...}.")
      .def("lanes", &PyTimeline::lanes, "Device lanes (one per GPU, MIG slice or CPU pool): [{name, flavor, resource, blocks}].")
      .def("html", &PyTimeline::html, py::arg("title") = "budcore schedule", "One self-contained HTML page.")
      .def_property_readonly("trees_simulated", &PyTimeline::trees_simulated, "Cohort trees simulated again by the last update.");
  py::class_<PySnapshot>(m, "ScheduleSnapshot",
                         "A timeline's result as the platform computed it (Platform.schedule): the same reads and "
                         "pictures as ScheduleTimeline; events are refused.")
      .def("result", &PySnapshot::result, py::arg("details") = true,
           "{jobs, never, makespan} (with details: wait reasons, warnings, utilization).")
      .def("apply", &PySnapshot::apply, py::arg("event"), "Refused (UnsupportedError): the platform revises its timeline.")
      .def("lanes", &PySnapshot::lanes, "Device lanes (one per GPU, MIG slice or CPU pool): [{name, flavor, resource, blocks}].")
      .def("html", &PySnapshot::html, py::arg("title") = "budcore schedule", "One self-contained HTML page.")
      .def_property_readonly("trees_simulated", &PySnapshot::trees_simulated, "0: nothing is simulated again here.");
  m.def("schedule_replay", &replay, py::arg("config") = "baseline",
        "Replay Kueue's scheduler-performance configuration ('baseline' or a generator dict) and score it.");
}

}  // namespace budcore::bindings
