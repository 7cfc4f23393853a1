// The quota layer for Python (budcore.quota wraps these): QuotaConfig, AdmissionEngine and
// quota_simulate over budcore::quota. Configuration and workload dicts use the contract-2
// (`budcore quota simulate`) shape and go through the library's own parser, so Python sees the
// same defaults and the same error paths as the CLI. Simulation and cycles release the GIL.
#include <pybind11/stl.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bindings.hpp"
#include "budcore/core/json.hpp"
#include "budcore/core/quantity.hpp"
#include "budcore/core/yaml.hpp"
#include "budcore/quota/admission.hpp"
#include "budcore/quota/config.hpp"
#include "budcore/quota/engine_json.hpp"
#include "budcore/quota/kueue_yaml.hpp"
#include "budcore/quota/scenario.hpp"
#include "casters.hpp"
#include "errors.hpp"
#include "pytypes.hpp"

namespace budcore::bindings {
namespace {

using core::Value;
using quota::AdmissionEngine;
using quota::QuotaConfig;

// A configuration plus what importing it reported.
struct PyQuotaConfig {
  QuotaConfig config;
  std::vector<std::string> warnings;
};

// Contract-2 JSON text -> Scenario, without the GIL.
quota::Scenario parse_scenario_text(const std::string& text) {
  core::Result<quota::Scenario> s = [&] {
    py::gil_scoped_release release;
    return quota::parse_scenario(text);
  }();
  return unwrap(std::move(s));
}

// A dict (or JSON text) in the contract-2 shape as JSON text. `what` names the parameter.
std::string json_text_of(const py::handle& obj, const char* what) {
  if (py::isinstance<py::str>(obj)) return obj.cast<std::string>();
  if (!py::isinstance<py::dict>(obj))
    throw py::type_error(std::string(what) + " must be a dict or JSON text, not " +
                         py::type::handle_of(obj).attr("__name__").cast<std::string>());
  Value v = to_value(obj);
  return core::to_json(v);
}

PyQuotaConfig config_from_text(const std::string& text) {
  quota::Scenario s = parse_scenario_text(text);
  core::Status st = [&] {
    py::gil_scoped_release release;
    return quota::validate(s.config);
  }();
  unwrap(std::move(st));
  return PyQuotaConfig{std::move(s.config), {}};
}

PyQuotaConfig config_from_kueue(core::Result<quota::KueueImport> r) {
  quota::KueueImport imp = unwrap(std::move(r));
  return PyQuotaConfig{std::move(imp.config), std::move(imp.warnings)};
}

quota::KueueApiVersion api_version(const std::string& v) {
  if (v == "v1beta2") return quota::KueueApiVersion::V1beta2;
  if (v == "v1beta1") return quota::KueueApiVersion::V1beta1;
  throw PyError(core::Error::invalid("version", v, "expected \"v1beta1\" or \"v1beta2\""));
}

Value parse_json_or_throw(const std::string& text) { return unwrap(core::parse_json(text)); }

std::vector<std::string> names_of(const auto& items) {
  std::vector<std::string> out;
  out.reserve(items.size());
  for (const auto& i : items) out.push_back(i.name);
  return out;
}

// ---- simulation output as Python objects (the contract-2 output) ----------------------------

JsonDict simulate(const JsonDocArg& scenario) {
  std::string text = json_text_of(scenario, "scenario");
  core::Result<Value> out = [&]() -> core::Result<Value> {
    py::gil_scoped_release release;
    auto s = quota::parse_scenario(text);
    if (!s) return std::move(s).error();
    auto r = quota::simulate(*s);
    if (!r) return std::move(r).error();
    return quota::to_value(*r);
  }();
  return hinted<JsonDict>(to_python(unwrap(std::move(out))));
}

// ---- the engine ----------------------------------------------------------------------------

class PyEngine {
 public:
  PyEngine(const PyQuotaConfig& cfg, bool fair_sharing, const std::vector<std::string>& strategies)
      : config_(cfg.config), engine_(create(cfg.config, fair_sharing, strategies)) {}

  void add_workload(const JsonDictArg& w) {
    quota::Workload wl = workload(w);
    core::Status st = [&] {
      py::gil_scoped_release release;
      return engine_.add_workload(wl);
    }();
    unwrap(std::move(st));
  }

  JsonDict try_reserve(const JsonDictArg& w) {
    quota::Workload wl = workload(w);
    core::Result<quota::Admission> a = [&] {
      py::gil_scoped_release release;
      return engine_.try_reserve(wl);
    }();
    return hinted<JsonDict>(to_python(quota::to_value(unwrap(std::move(a)))));
  }

  void finish(const std::string& key) {
    core::Status st = [&] {
      py::gil_scoped_release release;
      return engine_.finish(key);
    }();
    unwrap(std::move(st));
  }

  JsonDict run_cycle() {
    quota::CycleReport rep;
    {
      py::gil_scoped_release release;
      rep = engine_.run_cycle();
    }
    return hinted<JsonDict>(to_python(quota::to_value(rep)));
  }

  int run_until_quiescent(int max_cycles) {
    if (max_cycles < 0) throw PyError(core::Error::invalid("max_cycles", std::to_string(max_cycles), "must not be negative"));
    py::gil_scoped_release release;
    return engine_.run_until_quiescent(max_cycles);
  }

  std::optional<JsonDict> status(const std::string& key) const {
    auto s = engine_.status(key);
    if (!s) return std::nullopt;
    return hinted<JsonDict>(to_python(quota::to_value(*s)));
  }

  JsonDictList statuses() const {
    JsonDictList out;
    for (const auto& s : engine_.statuses()) out.append(hinted<JsonDict>(to_python(quota::to_value(s))));
    return out;
  }

  // view -> flavor -> resource -> {nominal, used, borrowed, lent, available} as Quantity.
  using Cells = py::typing::Dict<py::str, core::Quantity>;
  using UsageTree = py::typing::Dict<py::str, py::typing::Dict<py::str, py::typing::Dict<py::str, Cells>>>;

  UsageTree usage(const std::string& view) const {
    UsageTree out;
    for (const auto& [node, flavors] : usage_view(view)) {
      py::dict fd;
      for (const auto& [flavor, resources] : flavors) {
        py::dict rd;
        for (const auto& [resource, cell] : resources) {
          auto q = [&](std::int64_t milli) { return py::cast(quantity(resource, milli)); };
          py::dict c;
          c["nominal"] = q(cell.nominal);
          c["used"] = q(cell.used);
          c["borrowed"] = q(cell.borrowed);
          c["lent"] = q(cell.lent);
          c["available"] = q(cell.available);
          rd[py::str(resource)] = c;
        }
        fd[py::str(flavor)] = rd;
      }
      out[py::str(node)] = fd;
    }
    return out;
  }

  // Flat rows for a DataFrame: (node, flavor, resource, nominal, used, borrowed, lent,
  // available), amounts in milli-units (exact integers).
  std::vector<std::tuple<std::string, std::string, std::string, std::int64_t, std::int64_t, std::int64_t,
                         std::int64_t, std::int64_t>>
  usage_rows(const std::string& view) const {
    std::vector<std::tuple<std::string, std::string, std::string, std::int64_t, std::int64_t, std::int64_t,
                           std::int64_t, std::int64_t>>
        rows;
    for (const auto& [node, flavors] : usage_view(view))
      for (const auto& [flavor, resources] : flavors)
        for (const auto& [resource, c] : resources)
          rows.emplace_back(node, flavor, resource, c.nominal, c.used, c.borrowed, c.lent, c.available);
    return rows;
  }

 private:

  static AdmissionEngine create(const QuotaConfig& config, bool fair_sharing, const std::vector<std::string>& names) {
    quota::EngineOptions opts;
    opts.fair_sharing = fair_sharing;
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (names[i] == "LessThanOrEqualToFinalShare")
        opts.fair_sharing_strategies.push_back(quota::FairSharingStrategy::LessThanOrEqualToFinalShare);
      else if (names[i] == "LessThanInitialShare")
        opts.fair_sharing_strategies.push_back(quota::FairSharingStrategy::LessThanInitialShare);
      else
        throw PyError(core::Error::invalid("fair_sharing_strategies[" + std::to_string(i) + "]", names[i],
                                           "expected LessThanOrEqualToFinalShare or LessThanInitialShare"));
    }
    core::Result<AdmissionEngine> e = [&] {
      py::gil_scoped_release release;
      return AdmissionEngine::create(config, opts);
    }();
    return unwrap(std::move(e));
  }

  // A contract-2 workload dict through the scenario parser (quota/engine_json.hpp):
  // priority_class resolves against this engine's configuration; errors read "workload.pod_sets[0].count".
  quota::Workload workload(const JsonDictArg& w) const {
    if (!py::isinstance<py::dict>(w))
      throw py::type_error("a workload must be a dict, not " + py::type::handle_of(w).attr("__name__").cast<std::string>());
    std::string text = core::to_json(to_value(w, "workload"));
    core::Result<quota::Workload> wl = [&] {
      py::gil_scoped_release release;
      return quota::parse_workload(text, config_);
    }();
    return unwrap(std::move(wl));
  }

  quota::UsageView usage_view(const std::string& view) const {
    if (view == "cluster_queue") return engine_.cluster_queue_usage();
    if (view == "cohort") return engine_.cohort_usage();
    if (view == "local_queue") return engine_.local_queue_usage();
    throw PyError(core::Error::invalid("view", view, "expected \"cluster_queue\", \"cohort\" or \"local_queue\""));
  }

  core::Quantity quantity(const std::string& resource, std::int64_t milli) const {
    return core::Quantity::from_nano(static_cast<core::int128>(milli) * 1'000'000, engine_.format_of(resource));
  }

  QuotaConfig config_;
  AdmissionEngine engine_;
};

// str or os.PathLike.
std::string path_of(const PathArg& obj) { return py::module_::import("os").attr("fspath")(obj).cast<std::string>(); }

}  // namespace

void bind_quota(py::module_& m) {
  py::class_<PyQuotaConfig>(m, "QuotaConfig",
                            "A validated Kueue configuration: resource flavors, cohorts, cluster queues, "
                            "local queues and priority classes (the keys of docs/cli.md contract 2).")
      .def(py::init([](const OptionalJsonDocArg& document, const py::kwargs& sections) {
             if (!document.is_none() && !sections.empty())
               throw py::type_error("QuotaConfig() takes a document or keyword sections, not both");
             // Keyword form: the sections are the document (resource_flavors=[...], cluster_queues=[...], ...).
             return config_from_text(json_text_of(document.is_none() ? py::object(sections) : py::object(document), "config"));
           }),
           py::arg("document") = py::none(), py::pos_only(),
           "QuotaConfig(document) from a dict or JSON text in the `quota simulate` shape, or "
           "QuotaConfig(resource_flavors=[...], cohorts=[...], cluster_queues=[...], local_queues=[...], "
           "priority_classes=[...]); ValidationError names the bad field. QuotaConfig() is empty.")
      .def_static(
          "from_dict", [](const JsonDictArg& d) { return config_from_text(json_text_of(d, "config")); },
          py::arg("data"), "From a dict in the `quota simulate` shape (workloads, if any, are ignored).")
      .def_static(
          "from_json", [](const std::string& text) { return config_from_text(text); }, py::arg("text"), "A quota configuration from JSON text; ValidationError names the bad field.")
      .def_static(
          "load",
          [](const PathArg& path_obj) {
            std::string path = path_of(path_obj);
            core::Result<Value> v = [&] {
              py::gil_scoped_release release;
              return core::load_document_file(path);
            }();
            return config_from_text(core::to_json(unwrap(std::move(v))));
          },
          py::arg("path"), "A budcore quota configuration (or scenario) file, JSON or YAML.")
      .def_static(
          "from_kueue_yaml",
          [](const std::string& text) {
            core::Result<quota::KueueImport> r = [&] {
              py::gil_scoped_release release;
              return quota::import_kueue_yaml(text);
            }();
            return config_from_kueue(std::move(r));
          },
          py::arg("text"), "Kueue objects (multi-document YAML or JSON), v1beta1 or v1beta2.")
      .def_static(
          "from_kueue",
          [](const py::typing::List<JsonDict>& docs) {
            std::vector<Value> values;
            for (std::size_t i = 0; i < docs.size(); ++i)
              values.push_back(to_value(docs[i], "documents[" + std::to_string(i) + "]"));
            return config_from_kueue(quota::import_kueue(values));
          },
          py::arg("documents"), "Kueue objects as dicts.")
      .def_static(
          "load_kueue",
          [](const PathArg& path_obj) {
            std::string path = path_of(path_obj);
            core::Result<quota::KueueImport> r = [&] {
              py::gil_scoped_release release;
              return quota::import_kueue_path(path);
            }();
            return config_from_kueue(std::move(r));
          },
          py::arg("path"), "A Kueue YAML file or a directory of them.")
      .def("to_dict", [](const PyQuotaConfig& c) { return hinted<JsonDict>(to_python(parse_json_or_throw(quota::config_to_json(c.config, -1)))); }, "The configuration as a dict (the document from_dict reads).")
      .def("to_json", [](const PyQuotaConfig& c, int indent) { return quota::config_to_json(c.config, indent); },
           py::arg("indent") = 2, "The configuration as JSON text, indented by `indent` spaces.")
      .def(
          "to_kueue",
          [](const PyQuotaConfig& c, const std::string& version) {
            JsonDictList out;
            for (const auto& d : quota::export_kueue(c.config, api_version(version))) out.append(hinted<JsonDict>(to_python(d)));
            return out;
          },
          py::arg("version") = "v1beta2", "The configuration as Kueue objects (ResourceFlavor, Cohort, ClusterQueue, LocalQueue dicts) of API `version`.")
      .def(
          "to_kueue_yaml",
          [](const PyQuotaConfig& c, const std::string& version) {
            return quota::export_kueue_yaml(c.config, api_version(version));
          },
          py::arg("version") = "v1beta2", "The configuration as a multi-document Kueue YAML of API `version`.")
      .def_readonly("warnings", &PyQuotaConfig::warnings, "What a Kueue import skipped or defaulted.")
      .def_property_readonly("resource_flavors", [](const PyQuotaConfig& c) { return names_of(c.config.resource_flavors); }, "Names of the ResourceFlavors.")
      .def_property_readonly("cohorts", [](const PyQuotaConfig& c) { return names_of(c.config.cohorts); }, "Names of the Cohorts.")
      .def_property_readonly("cluster_queues", [](const PyQuotaConfig& c) { return names_of(c.config.cluster_queues); }, "Names of the ClusterQueues.")
      .def_property_readonly("local_queues",
                             [](const PyQuotaConfig& c) {
                               std::vector<std::string> out;
                               for (const auto& lq : c.config.local_queues) out.push_back(lq.namespace_ + "/" + lq.name);
                               return out;
                             }, "The LocalQueues as 'namespace/name'.")
      .def("__repr__", [](const PyQuotaConfig& c) {
        return "QuotaConfig(" + std::to_string(c.config.cluster_queues.size()) + " cluster queues, " +
               std::to_string(c.config.cohorts.size()) + " cohorts, " +
               std::to_string(c.config.resource_flavors.size()) + " flavors)";
      });

  py::class_<PyEngine>(m, "AdmissionEngine",
                       "Kueue's scheduler in-process over a QuotaConfig. Workloads are dicts in the "
                       "`quota simulate` shape; keys are 'namespace/name'. Thread-safe; cycles release "
                       "the GIL.")
      .def(py::init<const PyQuotaConfig&, bool, const std::vector<std::string>&>(), py::arg("config"),
           py::arg("fair_sharing") = false, py::arg("fair_sharing_strategies") = std::vector<std::string>{}, "An admission engine over `config` with Kueue's semantics (fair sharing when asked).")
      .def("add_workload", &PyEngine::add_workload, py::arg("workload"), "Adds a workload (a dict: name, namespace, queue, priority, pod_sets, ...) to its queue.")
      .def("try_reserve", &PyEngine::try_reserve, py::arg("workload"),
           "Admit now if it fits without preemption; else QuotaExceededError with the reason.")
      .def("finish", &PyEngine::finish, py::arg("key"), "A workload ends: its quota is released and its cohort tree's waiting workloads are requeued.")
      .def("run_cycle", &PyEngine::run_cycle, "Runs one scheduling cycle; returns {'admitted', 'preempted', 'released', 'changed'}.")
      .def("run_until_quiescent", &PyEngine::run_until_quiescent, py::arg("max_cycles") = 1'000'000, "Runs cycles until one changes nothing (at most `max_cycles`); returns the number run.")
      .def("status", &PyEngine::status, py::arg("key"), "A workload's status: state, cluster queue, flavors, pending reason.")
      .def("statuses", &PyEngine::statuses, "Every workload's status, in key order.")
      .def("usage", &PyEngine::usage, py::arg("view") = "cluster_queue",
           "view -> flavor -> resource -> {nominal, used, borrowed, lent, available} (Quantity).")
      .def("usage_rows", &PyEngine::usage_rows, py::arg("view") = "cluster_queue",
           "(node, flavor, resource, nominal, used, borrowed, lent, available) in milli-units.");

  m.def("quota_simulate", &simulate, py::arg("scenario"),
        "Run a contract-2 scenario (dict or JSON text); returns the contract-2 output dict.");
}

}  // namespace budcore::bindings
