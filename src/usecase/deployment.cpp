// plan_deployment and the deployment record.
#include "budcore/usecase/deployment.hpp"

#include <algorithm>
#include <array>
#include <map>

#include "budcore/pipeline/dag.hpp"
#include "core/enum_lookup.hpp"
#include "usecase/doc_reader.hpp"

namespace budcore::usecase {
namespace {

using core::Error;
using core::Value;
using detail::Reader;

constexpr core::detail::EnumNames<DeploymentStatus, 5> kStatuses{{{DeploymentStatus::Deploying, "deploying"},
                                                                  {DeploymentStatus::Running, "running"},
                                                                  {DeploymentStatus::Failed, "failed"},
                                                                  {DeploymentStatus::TearingDown, "tearing_down"},
                                                                  {DeploymentStatus::Deleted, "deleted"}}};

constexpr std::array<std::string_view, 17> kRecordKeys{
    "schema_version",   "id",         "tenant_id", "project_id",     "cluster_id",         "name",       "template_id",
    "template_version", "parameters", "status",    "status_message", "teardown_requested", "components", "routing",
    "created_at",       "updated_at", "pipeline_run_id"};
constexpr std::array<std::string_view, 6> kComponentKeys{"instance_id", "component_ref", "depends_on",
                                                         "job_id",      "job_status",    "outputs"};

Value id_value(const core::Id& id) { return id.is_nil() ? Value() : Value(id.to_string()); }

// The job that deploys one resolved component.
job::Job component_job(const ResolvedComponent& c, const Value& step_config, const core::Id& deployment,
                       const DeploymentRequest& request) {
  job::Job j;
  j.name = c.id;
  j.tenant_id = request.tenant_id;
  j.project_id = request.project_id;
  j.cluster_id = request.cluster_id;
  j.usecase_deployment_id = deployment;
  j.source = job::JobSource::Usecase;
  j.source_id = deployment;
  j.job_type = job::JobType::Service;
  j.deployment_type = c.deployment_type;
  if (const Value* spec = step_config.find("spec")) j.spec = *spec;
  if (c.gpu_count > 0) j.gpu_type = c.gpu_type;
  j.gpu_count = c.gpu_count;
  j.cpu_cores = core::Quantity::from_milli(c.cpu_millicores);
  // memory_mib is a multiple of 4, so mib/1024 GiB is a whole number of nano-GiB.
  j.memory_gb = core::Quantity::from_nano(core::int128{c.memory_mib / 4} * 3'906'250);
  return j;
}

}  // namespace

const PlannedJob* DeploymentPlan::job(std::string_view instance_id) const noexcept {
  for (const auto& j : jobs) {
    if (j.instance_id == instance_id) return &j;
  }
  return nullptr;
}

core::Result<DeploymentPlan> plan_deployment(const ResolvedStack& stack, const DeploymentRequest& request) {
  DeploymentPlan plan;
  plan.deployment_id = request.deployment_id.is_nil() ? core::Id::generate() : request.deployment_id;
  const std::string deployment = plan.deployment_id.to_string();

  // The pipeline, stamped so that the jobs its JOB steps create carry the deployment id.
  plan.pipeline = stack.pipeline;
  if (plan.pipeline.is_map()) {
    core::Map& doc = plan.pipeline.mutable_map();
    if (Value* p = doc.find("pipeline"); p != nullptr && p->is_map()) {
      p->mutable_map().set("usecase_deployment_id", Value(deployment));
    }
    if (Value* steps = doc.find("steps"); steps != nullptr && steps->is_list()) {
      for (Value& step : steps->mutable_list()) {
        if (Value* config = step.is_map() ? step.mutable_map().find("config") : nullptr; config && config->is_map()) {
          config->mutable_map().set("usecase_deployment_id", Value(deployment));
        }
      }
    }
  }

  // Dependency order: levels of the DAG, template order within a level.
  std::map<std::string_view, pipeline::Dag::Node> index;
  for (std::size_t i = 0; i < stack.components.size(); ++i) {
    index.emplace(stack.components[i].id, static_cast<pipeline::Dag::Node>(i));
  }
  std::vector<pipeline::Dag::Edge> edges;
  for (std::size_t i = 0; i < stack.components.size(); ++i) {
    for (const auto& d : stack.components[i].depends_on) {
      auto it = index.find(d);
      if (it == index.end()) {
        return Error::invalid("components." + stack.components[i].id + ".depends_on", d,
                              "names no component of the stack");
      }
      edges.emplace_back(it->second, static_cast<pipeline::Dag::Node>(i));
    }
  }
  pipeline::Dag dag(stack.components.size(), std::move(edges));
  if (dag.has_cycle()) return Error::invalid("components", {}, "the components depend on each other in a cycle");
  std::vector<std::vector<std::size_t>> by_level;
  for (std::size_t i = 0; i < stack.components.size(); ++i) {
    auto level = static_cast<std::size_t>(dag.levels()[i]);
    if (by_level.size() <= level) by_level.resize(level + 1);
    by_level[level].push_back(i);
  }

  const Value* steps = stack.pipeline.find("steps");
  for (const auto& level : by_level) {
    std::vector<std::string> names;
    for (std::size_t i : level) {
      const ResolvedComponent& c = stack.components[i];
      Value config;
      if (steps != nullptr && steps->is_list() && i < steps->as_list().size()) {
        if (const Value* cfg = steps->as_list()[i].find("config")) config = *cfg;
      }
      PlannedJob pj{c.id, c.depends_on, component_job(c, config, plan.deployment_id, request)};
      if (auto st = pj.job.validate(); !st) return std::move(Error(st.error()).at("components." + c.id));
      plan.jobs.push_back(std::move(pj));
      names.push_back(c.id);
    }
    plan.levels.push_back(std::move(names));
  }
  for (auto it = plan.jobs.rbegin(); it != plan.jobs.rend(); ++it) plan.teardown_order.push_back(it->instance_id);
  return plan;
}

std::string_view to_string(DeploymentStatus s) noexcept { return core::detail::enum_name(s, kStatuses); }
core::Result<DeploymentStatus> parse_deployment_status(std::string_view text) {
  return core::detail::parse_enum(text, kStatuses, "deployment status");
}

DeploymentRecord DeploymentRecord::from_plan(const DeploymentPlan& plan, const ResolvedStack& stack,
                                             const DeploymentRequest& request) {
  DeploymentRecord r;
  r.id = plan.deployment_id;
  r.tenant_id = request.tenant_id;
  r.project_id = request.project_id;
  r.cluster_id = request.cluster_id;
  r.name = stack.name;
  r.template_id = stack.template_id;
  r.template_version = stack.template_version;
  r.parameters = stack.parameters;
  r.routing = stack.routing;
  for (const auto& j : plan.jobs) {
    const ResolvedComponent* c = stack.component(j.instance_id);
    r.components.push_back(DeploymentComponent{j.instance_id, c ? c->component_ref : std::string(), j.depends_on,
                                               std::nullopt, job::JobStatus::Pending, Value(core::Map{})});
  }
  return r;
}

DeploymentComponent* DeploymentRecord::component(std::string_view instance_id) noexcept {
  for (auto& c : components) {
    if (c.instance_id == instance_id) return &c;
  }
  return nullptr;
}

core::Status DeploymentRecord::update_job(std::string_view instance_id, const core::Id& job_id, job::JobStatus s,
                                          const Value& outputs) {
  DeploymentComponent* c = component(instance_id);
  if (c == nullptr) {
    return Error{core::ErrorCode::NotFound,
                 "deployment " + id.to_string() + " has no instance '" + std::string(instance_id) + "'", "instance_id",
                 std::string(instance_id)};
  }
  c->job_id = job_id;
  c->job_status = s;
  if (outputs.is_map()) c->outputs = outputs;
  status = derive_status();
  return {};
}

DeploymentStatus DeploymentRecord::derive_status() const noexcept {
  if (teardown_requested) {
    bool all_ended = std::all_of(components.begin(), components.end(), [](const DeploymentComponent& c) {
      return !c.job_id || job::is_terminal(c.job_status);
    });
    return all_ended ? DeploymentStatus::Deleted : DeploymentStatus::TearingDown;
  }
  bool all_running = true;
  for (const auto& c : components) {
    // A service that ended (even "completed") is a deployment that stopped working.
    if (c.job_id && job::is_terminal(c.job_status)) return DeploymentStatus::Failed;
    if (!c.job_id || c.job_status != job::JobStatus::Running) all_running = false;
  }
  return all_running ? DeploymentStatus::Running : DeploymentStatus::Deploying;
}

std::vector<std::string> DeploymentRecord::begin_teardown() {
  teardown_requested = true;
  std::vector<std::string> out;
  for (auto it = components.rbegin(); it != components.rend(); ++it) {
    if (it->job_id && !job::is_terminal(it->job_status)) out.push_back(it->instance_id);
  }
  status = derive_status();
  return out;
}

Value DeploymentRecord::to_value() const {
  core::Map m;
  m.set("schema_version", Value(kSchemaVersion));
  m.set("id", id_value(id));
  m.set("tenant_id", id_value(tenant_id));
  m.set("project_id", id_value(project_id));
  m.set("cluster_id", id_value(cluster_id));
  m.set("name", Value(name));
  m.set("template_id", Value(template_id));
  m.set("template_version", Value(template_version));
  m.set("parameters", parameters);
  m.set("status", Value(std::string(to_string(status))));
  m.set("status_message", Value(status_message));
  m.set("teardown_requested", Value(teardown_requested));
  m.set("pipeline_run_id", pipeline_run_id ? Value(pipeline_run_id->to_string()) : Value());
  core::List comps;
  for (const auto& c : components) {
    core::Map cm;
    cm.set("instance_id", Value(c.instance_id));
    cm.set("component_ref", Value(c.component_ref));
    cm.set("depends_on", detail::string_list_value(c.depends_on));
    cm.set("job_id", c.job_id ? Value(c.job_id->to_string()) : Value());
    cm.set("job_status", Value(std::string(job::to_string(c.job_status))));
    cm.set("outputs", c.outputs);
    comps.push_back(Value(std::move(cm)));
  }
  m.set("components", Value(std::move(comps)));
  m.set("routing", routing);
  m.set("created_at", created_at ? Value(created_at->to_string()) : Value());
  m.set("updated_at", updated_at ? Value(updated_at->to_string()) : Value());
  return Value(std::move(m));
}

core::Result<DeploymentRecord> DeploymentRecord::from_value(const Value& value) {
  if (!value.is_map()) return Error::invalid({}, detail::value_text(value), "a deployment record must be a map");
  Reader r(value.as_map());
  BUDCORE_TRY(r.reject_unknown(kRecordKeys));
  BUDCORE_TRY_ASSIGN(auto version, r.integer("schema_version"));
  if (version && *version != kSchemaVersion) {
    return Error{core::ErrorCode::Unsupported, "unsupported deployment record schema version", "schema_version",
                 std::to_string(*version)};
  }
  DeploymentRecord d;
  BUDCORE_TRY_ASSIGN(auto id, r.id("id"));
  if (!id) return Error::invalid("id", {}, "required field is missing");
  d.id = *id;
  BUDCORE_TRY_ASSIGN(auto tenant, r.id("tenant_id"));
  d.tenant_id = tenant.value_or(core::Id());
  BUDCORE_TRY_ASSIGN(auto project, r.id("project_id"));
  d.project_id = project.value_or(core::Id());
  BUDCORE_TRY_ASSIGN(auto cluster, r.id("cluster_id"));
  d.cluster_id = cluster.value_or(core::Id());
  BUDCORE_TRY_ASSIGN(auto name, r.string("name"));
  d.name = name.value_or("");
  BUDCORE_TRY_ASSIGN(d.template_id, detail::required_string(r, "template_id"));
  BUDCORE_TRY_ASSIGN(auto tv, r.string("template_version"));
  d.template_version = tv.value_or("");
  BUDCORE_TRY_ASSIGN(d.parameters, detail::map_or_empty(r, "parameters"));
  BUDCORE_TRY_ASSIGN(d.status, r.required_enum<DeploymentStatus>("status", parse_deployment_status));
  BUDCORE_TRY_ASSIGN(auto msg, r.string("status_message"));
  d.status_message = msg.value_or("");
  BUDCORE_TRY_ASSIGN(auto td, r.boolean("teardown_requested"));
  d.teardown_requested = td.value_or(false);
  BUDCORE_TRY_ASSIGN(d.pipeline_run_id, r.id("pipeline_run_id"));
  BUDCORE_TRY_ASSIGN(auto comps, r.list("components"));
  if (comps) {
    for (std::size_t i = 0; i < comps->size(); ++i) {
      const Value& cv = (*comps)[i];
      std::string at = "components[" + std::to_string(i) + "]";
      if (!cv.is_map()) return Error::invalid(at, detail::value_text(cv), "must be a map");
      Reader cr(cv.as_map());
      auto read = [&]() -> core::Result<DeploymentComponent> {
        BUDCORE_TRY(cr.reject_unknown(kComponentKeys));
        DeploymentComponent c;
        BUDCORE_TRY_ASSIGN(c.instance_id, detail::required_string(cr, "instance_id"));
        BUDCORE_TRY_ASSIGN(auto ref, cr.string("component_ref"));
        c.component_ref = ref.value_or("");
        BUDCORE_TRY_ASSIGN(c.depends_on, detail::string_list(cr, "depends_on", true));
        BUDCORE_TRY_ASSIGN(c.job_id, cr.id("job_id"));
        BUDCORE_TRY_ASSIGN(auto st, cr.enumeration<job::JobStatus>("job_status", job::parse_job_status));
        c.job_status = st.value_or(job::JobStatus::Pending);
        BUDCORE_TRY_ASSIGN(c.outputs, detail::map_or_empty(cr, "outputs"));
        return c;
      };
      auto c = read();
      if (!c) return std::move(c.error().at(at));
      d.components.push_back(std::move(*c));
    }
  }
  BUDCORE_TRY_ASSIGN(auto routing, r.map("routing"));
  if (routing) d.routing = std::move(*routing);
  BUDCORE_TRY_ASSIGN(d.created_at, r.timestamp("created_at"));
  BUDCORE_TRY_ASSIGN(d.updated_at, r.timestamp("updated_at"));
  return d;
}

bool operator==(const DeploymentRecord& a, const DeploymentRecord& b) { return a.to_value() == b.to_value(); }

}  // namespace budcore::usecase
