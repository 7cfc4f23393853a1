// The defragmentation problem's JSON form: nodes, the workloads on them, the request; and the
// document that answers it (the plan, and the workloads after it when it is applied).
#include <algorithm>

#include "budcore/core/json.hpp"
#include "budcore/gpu/defrag.hpp"
#include "budcore/gpu/mig.hpp"
#include "budcore/gpu/mig_place.hpp"
#include "core/json_pointer.hpp"

namespace budcore::gpu {
namespace {

using core::Error;
using core::Value;

std::string kind_name(const Value& v) { return core::to_json(v); }

core::Status known(const Value& v, const std::string& path, std::initializer_list<std::string_view> keys) {
  if (!v.is_map()) return Error::invalid(path, kind_name(v), "must be a map");
  for (const auto& [k, _] : v.as_map())
    if (std::find(keys.begin(), keys.end(), k) == keys.end()) return Error::invalid(path + "." + k, "", "unknown key");
  return {};
}

core::Status integer(const Value& m, const std::string& path, std::string_view key, std::int64_t& out, std::int64_t lo,
                     std::int64_t hi) {
  const Value* v = m.find(key);
  if (v == nullptr || v->is_null()) return {};
  const std::string f = path + "." + std::string(key);
  if (!v->is_int()) return Error::invalid(f, kind_name(*v), "must be a whole number");
  if (v->as_int() < lo || v->as_int() > hi)
    return Error::invalid(f, std::to_string(v->as_int()), "must be " + std::to_string(lo) + "-" + std::to_string(hi));
  out = v->as_int();
  return {};
}

core::Status number(const Value& m, const std::string& path, std::string_view key, double& out) {
  const Value* v = m.find(key);
  if (v == nullptr || v->is_null()) return {};
  const std::string f = path + "." + std::string(key);
  if (!v->is_number()) return Error::invalid(f, kind_name(*v), "must be a number");
  if (!(v->as_float() >= 0) || v->as_float() > 1e12) return Error::invalid(f, kind_name(*v), "must be 0 or more (seconds)");
  out = v->as_float();
  return {};
}

core::Status string(const Value& m, const std::string& path, std::string_view key, std::string& out) {
  const Value* v = m.find(key);
  if (v == nullptr || v->is_null()) return {};
  if (!v->is_string()) return Error::invalid(path + "." + std::string(key), kind_name(*v), "must be a string");
  out = v->as_string();
  return {};
}

const core::List* list(const Value& m, std::string_view key) {
  const Value* v = m.find(key);
  return v != nullptr && v->is_list() ? &v->as_list() : nullptr;
}

constexpr std::int64_t kMaxCpu = std::int64_t{1} << 40;

core::Result<MigInstance> parse_instance(const Value& v, const std::string& f) {
  if (!v.is_string()) return Error::invalid(f, kind_name(v), "must be \"profile@start\"");
  const std::string& s = v.as_string();
  auto at = s.find('@');
  if (at == std::string::npos || at + 1 >= s.size() || s.size() - at > 2 || s[at + 1] < '0' || s[at + 1] > '9')
    return Error::invalid(f, s, "must be \"profile@start\" (\"3g.20gb@4\")");
  return MigInstance{s.substr(0, at), s[at + 1] - '0'};
}

core::Status read_node(const Value& v, const std::string& path, Pool& pool) {
  BUDCORE_TRY(known(v, path, {"name", "model", "cpu_milli", "memory_mib", "gpus", "sharing", "replicas", "mig"}));
  Node n;
  BUDCORE_TRY(string(v, path, "name", n.name));
  BUDCORE_TRY(string(v, path, "model", n.model));
  n.cpu_milli = kMaxCpu, n.memory_mib = kMaxCpu;
  BUDCORE_TRY(integer(v, path, "cpu_milli", n.cpu_milli, 0, kMaxCpu));
  BUDCORE_TRY(integer(v, path, "memory_mib", n.memory_mib, 0, kMaxCpu));
  std::int64_t gpus = 0, replicas = 1;
  BUDCORE_TRY(integer(v, path, "gpus", gpus, 0, kMaxGpusPerNode));
  BUDCORE_TRY(integer(v, path, "replicas", replicas, 1, 64));
  std::string sharing = "whole";
  BUDCORE_TRY(string(v, path, "sharing", sharing));
  Device d;
  if (sharing == "whole") d.sharing = Sharing::Whole;
  else if (sharing == "fractional") d.sharing = Sharing::Fractional;
  else if (sharing == "time_slice") d.sharing = Sharing::TimeSlice, d.replicas = static_cast<int>(replicas);
  else if (sharing == "mig") d.sharing = Sharing::Mig;
  else return Error::invalid(path + ".sharing", sharing, "must be whole, fractional, time_slice or mig");
  if (const core::List* mig = list(v, "mig")) {
    if (mig->size() > static_cast<std::size_t>(kMaxGpusPerNode)) return Error::invalid(path + ".mig", "", "at most 64 GPUs");
    for (std::size_t g = 0; g < mig->size(); ++g) {
      const std::string gf = path + ".mig[" + std::to_string(g) + "]";
      if (!(*mig)[g].is_list()) return Error::invalid(gf, kind_name((*mig)[g]), "must be a list of \"profile@start\"");
      Device md;
      md.sharing = Sharing::Mig;
      for (std::size_t i = 0; i < (*mig)[g].as_list().size(); ++i) {
        BUDCORE_TRY_ASSIGN(auto inst, parse_instance((*mig)[g].as_list()[i], gf + "[" + std::to_string(i) + "]"));
        md.mig.push_back(std::move(inst));
      }
      n.gpus.push_back(std::move(md));
    }
  } else {
    if (d.sharing == Sharing::Mig) return Error::invalid(path + ".mig", "", "a MIG node lists each GPU's layout");
    n.gpus.assign(static_cast<std::size_t>(gpus), d);
  }
  if (auto st = pool.add_node(std::move(n)); !st) return std::move(st).error().at(path);
  return {};
}

core::Status read_workload(const Value& v, const std::string& path, DefragProblem& p) {
  BUDCORE_TRY(known(v, path, {"name", "node", "gpus", "gpu_milli", "cpu_milli", "memory_mib", "mig", "priority",
                              "elapsed_seconds", "ends_in_seconds"}));
  Holder h;
  BUDCORE_TRY(string(v, path, "name", h.name));
  if (h.name.empty()) return Error::invalid(path + ".name", "", "a workload needs a name");
  for (const auto& o : p.holders)
    if (o.name == h.name) return Error::invalid(path + ".name", h.name, "another workload has this name");
  std::string node;
  BUDCORE_TRY(string(v, path, "node", node));
  bool found = false;
  for (std::size_t n = 0; n < p.pool.size() && !found; ++n)
    if (p.pool.node(n).name == node) h.placement.node = n, found = true;
  if (!found) return Error::invalid(path + ".node", node, "no such node");
  std::int64_t milli = kMilliPerGpu, cpu = 0, mem = 0, prio = 0;
  BUDCORE_TRY(integer(v, path, "gpu_milli", milli, 1, kMilliPerGpu));
  BUDCORE_TRY(integer(v, path, "cpu_milli", cpu, 0, kMaxCpu));
  BUDCORE_TRY(integer(v, path, "memory_mib", mem, 0, kMaxCpu));
  BUDCORE_TRY(integer(v, path, "priority", prio, -2'000'000'000, 2'000'000'000));
  h.task.name = h.name;
  h.task.cpu_milli = cpu;
  h.task.memory_mib = mem;
  h.priority = static_cast<std::int32_t>(prio);
  BUDCORE_TRY(number(v, path, "elapsed_seconds", h.elapsed_seconds));
  if (const Value* e = v.find("ends_in_seconds"); e != nullptr && !e->is_null()) {
    double end = 0;
    BUDCORE_TRY(number(v, path, "ends_in_seconds", end));
    h.ends_in_seconds = end;
  }
  if (const core::List* gpus = list(v, "gpus")) {
    for (std::size_t i = 0; i < gpus->size(); ++i) {
      if (!(*gpus)[i].is_int() || (*gpus)[i].as_int() < 0 || (*gpus)[i].as_int() >= kMaxGpusPerNode)
        return Error::invalid(path + ".gpus[" + std::to_string(i) + "]", kind_name((*gpus)[i]), "must be a GPU index (0-63)");
      h.placement.gpus.push_back(static_cast<int>((*gpus)[i].as_int()));
    }
    h.task.num_gpu = static_cast<int>(h.placement.gpus.size());
    h.task.gpu_milli = h.task.num_gpu > 0 ? static_cast<int>(milli) : 0;
  }
  if (const core::List* mig = list(v, "mig")) {
    if (h.task.num_gpu > 0) return Error::invalid(path + ".mig", "", "a workload holds GPUs or MIG instances, not both");
    for (std::size_t i = 0; i < mig->size(); ++i) {
      const Value& e = (*mig)[i];
      const std::string f = path + ".mig[" + std::to_string(i) + "]";
      if (!e.is_list() || e.as_list().size() != 2 || !e.as_list()[0].is_int() || !e.as_list()[1].is_int() ||
          e.as_list()[0].as_int() < 0 || e.as_list()[1].as_int() < 0)
        return Error::invalid(f, kind_name(e), "must be [gpu, instance]");
      h.mig.emplace_back(static_cast<int>(e.as_list()[0].as_int()), static_cast<std::size_t>(e.as_list()[1].as_int()));
    }
  }
  if (auto st = h.mig.empty() ? p.pool.allocate(h.task, h.placement) : p.pool.allocate(Task{h.name, cpu, mem, 0, 0, {}}, Placement{h.placement.node, {}});
      !st)
    return std::move(st).error().at(path);
  for (const auto& [g, i] : h.mig)
    if (auto st = p.pool.allocate_mig(h.placement.node, g, i); !st) return std::move(st).error().at(path + ".mig");
  p.holders.push_back(std::move(h));
  return {};
}

}  // namespace

core::Result<DefragProblem> parse_defrag_problem(std::string_view json) {
  auto parsed = core::parse_json(json);
  if (!parsed) {
    core::Error e = std::move(parsed).error();
    // Where the text stops being JSON ("nodes[0].gpus"), or the whole document.
    std::string field = core::field_path_of_pointer(e.field);
    e.field = field.empty() ? "problem" : std::move(field);
    return e;
  }
  Value doc = std::move(parsed).value();
  BUDCORE_TRY(known(doc, "problem", {"nodes", "workloads", "request", "move_overhead_seconds", "apply"}));
  DefragProblem p;
  const core::List* nodes = list(doc, "nodes");
  if (nodes == nullptr || nodes->empty()) return Error::invalid("nodes", "", "a problem lists its nodes");
  for (std::size_t i = 0; i < nodes->size(); ++i) BUDCORE_TRY(read_node((*nodes)[i], "nodes[" + std::to_string(i) + "]", p.pool));
  if (const core::List* ws = list(doc, "workloads"))
    for (std::size_t i = 0; i < ws->size(); ++i) BUDCORE_TRY(read_workload((*ws)[i], "workloads[" + std::to_string(i) + "]", p));
  const Value* r = doc.find("request");
  if (r == nullptr) return Error::invalid("request", "", "a problem has a request");
  BUDCORE_TRY(known(*r, "request", {"name", "num_gpu", "gpu_milli", "cpu_milli", "memory_mib", "mig_profile", "priority"}));
  std::int64_t num = 0, milli = kMilliPerGpu, cpu = 0, mem = 0, prio = 0;
  p.request.task.name = "request";
  BUDCORE_TRY(string(*r, "request", "name", p.request.task.name));
  BUDCORE_TRY(integer(*r, "request", "num_gpu", num, 0, kMaxGpusPerNode));
  BUDCORE_TRY(integer(*r, "request", "gpu_milli", milli, 1, kMilliPerGpu));
  BUDCORE_TRY(integer(*r, "request", "cpu_milli", cpu, 0, kMaxCpu));
  BUDCORE_TRY(integer(*r, "request", "memory_mib", mem, 0, kMaxCpu));
  BUDCORE_TRY(integer(*r, "request", "priority", prio, -2'000'000'000, 2'000'000'000));
  BUDCORE_TRY(string(*r, "request", "mig_profile", p.request.mig_profile));
  p.request.task.cpu_milli = cpu;
  p.request.task.memory_mib = mem;
  p.request.priority = static_cast<std::int32_t>(prio);
  if (p.request.mig_profile.empty()) {
    if (num == 0) return Error::invalid("request.num_gpu", "0", "a request asks for GPUs or a MIG profile");
    p.request.task.num_gpu = static_cast<int>(num);
    p.request.task.gpu_milli = static_cast<int>(milli);
  }
  BUDCORE_TRY(number(doc, "problem", "move_overhead_seconds", p.options.move_overhead_seconds));
  if (const Value* a = doc.find("apply"); a != nullptr && !a->is_null()) {
    if (!a->is_bool()) return Error::invalid("apply", kind_name(*a), "must be true or false");
    p.apply = a->as_bool();
  }
  return p;
}

namespace {

// Every holder where it is: {"name", "node", "gpus", "mig"}.
core::List holders_value(const Pool& pool, const std::vector<Holder>& holders) {
  core::List ws;
  for (const auto& h : holders) {
    core::List gpus, mig;
    for (int g : h.placement.gpus) gpus.push_back(g);
    for (const auto& [g, i] : h.mig) mig.push_back(Value::list({g, static_cast<long long>(i)}));
    ws.push_back(Value::map({{"name", h.name}, {"node", pool.node(h.placement.node).name}, {"gpus", Value(std::move(gpus))},
                             {"mig", Value(std::move(mig))}}));
  }
  return ws;
}

}  // namespace

core::Result<core::Value> place_mig_document(const DefragProblem& problem) {
  const Request& r = problem.request;
  if (r.mig_profile.empty()) return Error::invalid("request.mig_profile", "", "MIG placement needs the request's MIG profile");
  auto where = place_mig(problem.pool, r.task, r.mig_profile);
  if (!where) return Value(core::Map{{"placement", Value()}, {"applied", false}});
  core::List layout;
  for (const auto& i : where->layout) layout.push_back(to_string(i));
  const auto instance = where->instance ? *where->instance : where->layout.size() - 1;
  core::Map placement{{"node", problem.pool.node(where->node).name}, {"gpu", where->gpu},
                      {"instance", static_cast<long long>(instance)},
                      {"repartition", where->instance ? Value() : Value(std::move(layout))}, {"dropped", where->dropped}};
  core::Map out{{"placement", Value(std::move(placement))}, {"applied", false}};
  if (problem.apply) {
    Pool pool = problem.pool;
    const auto before = pool.node(where->node).gpus[static_cast<std::size_t>(where->gpu)].mig;
    BUDCORE_TRY(allocate_mig_placement(pool, r.task, *where));
    std::vector<Holder> holders = problem.holders;
    if (!where->instance)  // re-partitioned: the instances kept are re-indexed
      for (auto& h : holders)
        if (h.placement.node == where->node) remap_mig(h.mig, where->gpu, before, where->layout);
    core::List ws = holders_value(pool, holders);
    ws.push_back(Value::map({{"name", r.task.name}, {"node", pool.node(where->node).name}, {"gpus", Value(core::List{})},
                             {"mig", Value::list({Value::list({where->gpu, static_cast<long long>(instance)})})}}));
    out.set("applied", true);
    out.set("workloads", Value(std::move(ws)));
  }
  return Value(std::move(out));
}

core::Result<core::Value> defrag_document(const DefragProblem& problem) {
  BUDCORE_TRY_ASSIGN(auto plan, plan_defrag(problem.pool, problem.holders, problem.request, problem.options));
  core::Map out{{"plan", plan ? to_value(*plan, problem.pool) : Value()}, {"applied", false}};
  if (plan && problem.apply) {
    Pool pool = problem.pool;
    std::vector<Holder> holders = problem.holders;
    BUDCORE_TRY(apply_plan(pool, holders, problem.request, *plan));
    core::List ws = holders_value(pool, holders);
    core::List gpus;
    for (int g : plan->target.gpus) gpus.push_back(g);
    core::Map req{{"name", problem.request.task.name}, {"node", pool.node(plan->target.node).name}, {"gpus", Value(std::move(gpus))}};
    if (!problem.request.mig_profile.empty()) {
      req.set("mig", Value::list({Value::list({plan->target_gpu, static_cast<long long>(plan->target_instance)})}));
    }
    ws.push_back(Value(std::move(req)));
    out.set("applied", true);
    out.set("workloads", Value(std::move(ws)));
  }
  return Value(std::move(out));
}

}  // namespace budcore::gpu
