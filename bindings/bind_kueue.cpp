// The Kueue companion's configuration check and decisions for Python (budcore.kueue wraps
// them): the same documents the C ABI writes, from companion_json.hpp.
#include <string>

#include "bindings.hpp"
#include "budcore/companion/companion_json.hpp"
#include "budcore/core/yaml.hpp"
#include "casters.hpp"
#include "errors.hpp"

namespace budcore::bindings {
namespace {

// A configuration given as text (YAML or JSON) or as a dict; file names in it are relative to
// base_dir.
companion::CompanionConfig config_of(const py::object& config, const std::string& base_dir) {
  core::Value doc = py::isinstance<py::str>(config) ? unwrap(core::parse_document(config.cast<std::string>()))
                                                    : to_value(config, "config");
  return unwrap(companion::CompanionConfig::from_value(doc, base_dir));
}

}  // namespace

void bind_kueue(py::module_& m) {
  m.def(
      "kueue_companion_summary",
      [](const py::object& config, const std::string& base_dir) {
        return to_python(companion::config_summary(config_of(config, base_dir)));
      },
      py::arg("config"), py::arg("base_dir") = ".",
      "Validates a companion configuration (text or dict) and returns its summary: controllers, "
      "cluster_queues, tenants, budgets, currency. ValidationError names the field.");
  m.def(
      "kueue_companion_decide",
      [](const py::object& config, const py::object& request, const std::string& base_dir) {
        auto cfg = config_of(config, base_dir);
        auto doc = companion::decide_request(cfg, to_value(request, "request"));
        if (!doc) throw PyError(std::move(doc).error().at("request"));
        return to_python(*doc);
      },
      py::arg("config"), py::arg("request"), py::arg("base_dir") = ".",
      "The budget and window checks for one Workload: request {'workload', 'owner_annotations'?, "
      "'spent'?, 'now'}; returns {'tenant_id'?, 'price' | 'price_error', 'budget', 'window'}.");
}

}  // namespace budcore::bindings
