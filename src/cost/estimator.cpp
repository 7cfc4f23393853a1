// The contract-5 estimator: jobs, pipelines and use-case renders priced line by line.
#include "budcore/cost/estimator.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "budcore/quota/job_workload.hpp"
#include "core/enum_lookup.hpp"
#include "cost/document.hpp"
#include "cost/exact.hpp"
#include "cost/request.hpp"
#include "core/field_reader.hpp"

namespace budcore::cost {
namespace {

using core::Error;
using core::Map;
using core::Money;
using core::Quantity;
using core::Result;
using core::Value;

Error unknown_price(std::string field, std::string value, std::string why) {
  return Error{core::ErrorCode::NotFound, std::move(why), std::move(field), std::move(value)};
}

// A per-tier price of a resource section (cpu_core_hour, memory_gib_hour) for `field`.
Result<Price> section_price(const std::optional<TierPrices>& section, std::string_view section_name, Tier tier,
                            const std::string& field, const std::string& value) {
  if (!section) {
    return unknown_price(field, value, "the price book has no " + std::string(section_name) + " section");
  }
  const auto& p = section->at(tier);
  if (!p) {
    return unknown_price(field, value,
                         "the price book has no " + std::string(to_string(tier)) + " price in " + std::string(section_name));
  }
  return *p;
}

Result<EstimateLine> line(std::string item, std::string resource, std::string unit, const Quantity& count,
                          std::int64_t seconds, const Price& price, std::int64_t divisor) {
  BUDCORE_TRY_ASSIGN(Quantity quantity, detail::multiply(count, Quantity::from_int(seconds)));
  BUDCORE_TRY_ASSIGN(Money amount, detail::prorate(price.amount, quantity, divisor, kEstimateDecimals, std::nullopt, item));
  return EstimateLine{std::move(item), std::move(resource), quantity, std::move(unit), price, std::move(amount)};
}

Value line_value(const EstimateLine& l) {
  Map m;
  m.set("item", Value(l.item));
  m.set("resource", Value(l.resource));
  m.set("quantity", Value(core::detail::decimal_string(l.quantity)));
  m.set("unit", Value(l.unit));
  m.set("unit_price", Value(l.unit_price.text));
  m.set("amount", Value(l.amount.amount_string(kEstimateDecimals)));
  return Value(std::move(m));
}

void put_job_fields(Map& m, const JobEstimate& e) {
  m.set("currency", Value(e.currency));
  m.set("seconds", Value(static_cast<long long>(e.seconds)));
  m.set("tier", Value(std::string(to_string(e.tier))));
  if (e.monthly) m.set("period", Value("month"));
  if (e.hourly) m.set("period", Value("hour"));
  m.set("total", Value(e.total.amount_string(kEstimateDecimals)));
  core::List lines;
  lines.reserve(e.lines.size());
  for (const auto& l : e.lines) lines.push_back(line_value(l));
  m.set("lines", Value(std::move(lines)));
}

// ---- pipelines -----------------------------------------------------------------------------

bool type_is(const Value* v, std::string_view lower) {
  return v != nullptr && v->is_string() && core::detail::equals_ignoring_case(v->as_string(), lower);
}

std::string step_path(std::size_t i) { return "steps[" + std::to_string(i) + "]"; }

Result<const core::List*> steps_of(const Map& pipeline) {
  const Value* steps = pipeline.find("steps");
  if (steps == nullptr || steps->is_null()) return Error::invalid("steps", {}, std::string(detail::kMissingField));
  if (!steps->is_list()) return Error::invalid("steps", core::detail::value_text(*steps), "must be a list of steps");
  if (steps->as_list().size() > kMaxPipelineSteps) {
    return Error::invalid("steps", std::to_string(steps->as_list().size()) + " steps",
                          "has more than " + std::to_string(kMaxPipelineSteps) + " steps");
  }
  return &steps->as_list();
}

// Ids of steps that may not run: those with a condition, and every then/else branch.
Result<std::set<std::string, std::less<>>> optional_steps(const core::List& steps) {
  std::set<std::string, std::less<>> out;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (!steps[i].is_map()) continue;  // reported by the main pass
    const Map& s = steps[i].as_map();
    const Value* id = s.find("id");
    const Value* cond = s.find("condition");
    if (id != nullptr && id->is_string() && cond != nullptr && !cond->is_null()) out.insert(id->as_string());
    if (!type_is(s.find("step_type"), "condition")) continue;
    const Value* config = s.find("config");
    if (config == nullptr || !config->is_map()) continue;
    for (std::string_view key : {"then_steps", "else_steps"}) {
      const Value* branch = config->find(key);
      if (branch == nullptr || branch->is_null()) continue;
      const std::string path = step_path(i) + ".config." + std::string(key);
      if (!branch->is_list()) return Error::invalid(path, core::detail::value_text(*branch), "must be a list of step ids");
      for (const auto& target : branch->as_list()) {
        if (!target.is_string()) return Error::invalid(path, core::detail::value_text(target), "must be a list of step ids");
        out.insert(target.as_string());
      }
    }
  }
  return out;
}

// A contract-4 render: {"valid", "template", "parameters", "components", "disabled", "pipeline"}.
bool is_usecase_render(const Map& m) { return m.contains("components") && m.contains("pipeline"); }

}  // namespace

Result<ResourceRequest> read_job_request(const Value& document) {
  if (!document.is_map()) {
    return Error::invalid({}, core::detail::value_text(document),
                          "a job document must be a map, not " + std::string(core::to_string(document.kind())));
  }
  BUDCORE_TRY(core::detail::Reader(document.as_map()).reject_unknown(job::job_document_keys()));
  return detail::read_request(document.as_map(), "", nullptr, ResourceRequest{});
}

ResourceRequest request_of(const job::Job& j) {
  ResourceRequest r;
  r.job_type = j.job_type;
  r.gpu_type = j.gpu_type;
  r.gpu_count = j.gpu_count;
  r.cpu_cores = j.cpu_cores;
  r.memory_gb = j.memory_gb;
  r.storage_gb = j.storage_gb.value_or(0);
  r.estimated_duration_seconds = j.estimated_duration_seconds;
  r.priority = j.priority;
  r.open_ended = j.job_type == job::JobType::Service && !quota::serverless_endpoint_of(j).empty();
  return r;
}

Result<JobEstimate> estimate(const PriceBook& book, const ResourceRequest& q, const EstimateOptions& options) {
  const auto field = [&](std::string_view key) { return core::join_path(q.path, key); };
  JobEstimate e;
  e.currency = book.currency;
  e.tier = options.tier.value_or(q.priority == job::JobPriority::Spot ? Tier::Spot : Tier::OnDemand);
  if (q.estimated_duration_seconds) {
    e.seconds = std::max(*q.estimated_duration_seconds, book.minimum_billable_seconds);
  } else if (q.job_type == job::JobType::Service && q.open_ended) {
    e.seconds = kSecondsPerHour;
    e.hourly = true;
  } else if (q.job_type == job::JobType::Service) {
    e.seconds = kSecondsPerServiceMonth;
    e.monthly = true;
  } else {
    return Error::invalid(field("estimated_duration_seconds"), {}, std::string(detail::kMissingField) +
                              ": a " + std::string(job::to_string(q.job_type)) +
                              " job is priced by how long it runs (only a service without an estimate is priced "
                              "per month, a serverless worker per hour)");
  }
  const std::string tier_name(to_string(e.tier));
  if (q.gpu_count > 0) {
    if (!q.gpu_type) {
      return Error::invalid(field("gpu_type"), {}, std::string(detail::kMissingField) +
                                ": gpu_count is " + std::to_string(q.gpu_count) + " and the price depends on the GPU type");
    }
    BUDCORE_TRY_ASSIGN(Price p, book.gpu_price(*q.gpu_type, e.tier, field("gpu_type")));
    BUDCORE_TRY_ASSIGN(auto l, line("gpu", *q.gpu_type, "gpu-second", Quantity::from_int(q.gpu_count), e.seconds, p,
                                    kSecondsPerHour));
    e.lines.push_back(std::move(l));
  }
  if (!q.cpu_cores.is_zero()) {
    BUDCORE_TRY_ASSIGN(Price p, section_price(book.cpu_core_hour, "cpu_core_hour", e.tier, field("cpu_cores"),
                                              core::detail::decimal_string(q.cpu_cores)));
    BUDCORE_TRY_ASSIGN(auto l, line("cpu", "cpu", "core-second", q.cpu_cores, e.seconds, p, kSecondsPerHour));
    e.lines.push_back(std::move(l));
  }
  if (!q.memory_gb.is_zero()) {
    BUDCORE_TRY_ASSIGN(Price p, section_price(book.memory_gib_hour, "memory_gib_hour", e.tier, field("memory_gb"),
                                              core::detail::decimal_string(q.memory_gb)));
    BUDCORE_TRY_ASSIGN(auto l, line("memory", "memory", "GiB-second", q.memory_gb, e.seconds, p, kSecondsPerHour));
    e.lines.push_back(std::move(l));
  }
  if (q.storage_gb > 0) {
    if (!book.storage_gib_month) {
      return unknown_price(field("storage_gb"), std::to_string(q.storage_gb), "the price book has no storage_gib_month");
    }
    BUDCORE_TRY_ASSIGN(auto l, line("storage", "storage", "GiB-second", Quantity::from_int(q.storage_gb), e.seconds,
                                    *book.storage_gib_month, kSecondsPerStorageMonth));
    e.lines.push_back(std::move(l));
  }
  e.total = Money::from_units(0, book.currency);
  for (const auto& l : e.lines) {
    BUDCORE_TRY_ASSIGN(e.total, e.total.checked_add(l.amount));
  }
  return e;
}

Result<JobEstimate> estimate_job(const PriceBook& book, const job::Job& job, const EstimateOptions& options) {
  return estimate(book, request_of(job), options);
}

Result<PipelineEstimate> estimate_pipeline(const PriceBook& book, const Value& document, const EstimateOptions& options) {
  if (!document.is_map()) {
    return Error::invalid({}, core::detail::value_text(document), "a pipeline document must be a map with steps");
  }
  const Map* pipeline = &document.as_map();
  std::string prefix;  // error paths inside a use-case render start with "pipeline."
  std::map<std::string, std::pair<std::size_t, const Value*>, std::less<>> components;  // id -> (index, entry)
  const bool usecase = is_usecase_render(*pipeline);
  if (usecase) {
    if (const Value* valid = pipeline->find("valid"); valid != nullptr && valid->is_bool() && !valid->as_bool()) {
      return Error::invalid("valid", "false", "the use-case render failed; fix its errors before estimating");
    }
    const Value* comps = pipeline->find("components");
    if (!comps->is_list()) return Error::invalid("components", core::detail::value_text(*comps), "must be a list");
    const core::List& list = comps->as_list();
    for (std::size_t i = 0; i < list.size(); ++i) {
      const Value* id = list[i].is_map() ? list[i].find("id") : nullptr;
      if (id != nullptr && id->is_string()) components.emplace(id->as_string(), std::pair{i, &list[i]});
    }
    const Value* inner = pipeline->find("pipeline");
    if (!inner->is_map()) return Error::invalid("pipeline", core::detail::value_text(*inner), "must be a pipeline document");
    pipeline = &inner->as_map();
    prefix = "pipeline";
  }
  const auto prefixed = [&](Error e) { return prefix.empty() ? std::move(e) : detail::under(prefix, std::move(e)); };

  auto steps_r = steps_of(*pipeline);
  if (!steps_r) return prefixed(std::move(steps_r).error());
  const core::List& steps = **steps_r;
  auto optional_r = optional_steps(steps);
  if (!optional_r) return prefixed(std::move(optional_r).error());
  const Value* params = nullptr;
  if (const Value* info = pipeline->find("pipeline"); info != nullptr && info->is_map()) params = info->find("parameters");
  static const Value kNoParams = Value(Map{});
  if (params == nullptr || !params->is_map()) params = &kNoParams;

  PipelineEstimate out;
  out.currency = book.currency;
  out.total = Money::from_units(0, book.currency);
  out.total_min = out.total;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const std::string path = step_path(i);
    if (!steps[i].is_map()) return prefixed(Error::invalid(path, core::detail::value_text(steps[i]), "a step must be a map"));
    const Map& s = steps[i].as_map();
    const Value* type = s.find("step_type");
    if (type == nullptr || type->is_null()) return prefixed(Error::invalid(path + ".step_type", {}, std::string(detail::kMissingField)));
    if (!type->is_string()) return prefixed(Error::invalid(path + ".step_type", core::detail::value_text(*type), "must be a string"));
    if (!type_is(type, "job")) continue;
    const Value* id = s.find("id");
    if (id == nullptr || id->is_null()) return prefixed(Error::invalid(path + ".id", {}, std::string(detail::kMissingField)));
    if (!id->is_string()) return prefixed(Error::invalid(path + ".id", core::detail::value_text(*id), "must be a string"));
    const Value* config = s.find("config");
    if (config == nullptr || config->is_null()) return prefixed(Error::invalid(path + ".config", {}, std::string(detail::kMissingField)));
    if (!config->is_map()) return prefixed(Error::invalid(path + ".config", core::detail::value_text(*config), "must be a map"));

    ResourceRequest base;
    if (usecase) {
      base.job_type = job::JobType::Service;  // a deployed component runs until removed
      if (auto c = components.find(id->as_string()); c != components.end()) {
        const auto& [index, entry] = c->second;
        auto with = detail::component_defaults(*entry, "components[" + std::to_string(index) + "]", std::move(base));
        if (!with) return std::move(with).error();
        base = std::move(*with);
      }
    }
    auto request = detail::read_request(config->as_map(), path + ".config", params, std::move(base));
    if (!request) return prefixed(std::move(request).error());
    auto e = estimate(book, *request, options);
    if (!e) return prefixed(std::move(e).error());
    StepEstimate step{id->as_string(), optional_r->contains(id->as_string()), std::move(*e)};
    BUDCORE_TRY_ASSIGN(out.total, out.total.checked_add(step.estimate.total));
    if (!step.optional) {
      BUDCORE_TRY_ASSIGN(out.total_min, out.total_min.checked_add(step.estimate.total));
    }
    out.steps.push_back(std::move(step));
  }
  return out;
}

const Money& Estimate::total() const noexcept {
  return is_pipeline() ? std::get<PipelineEstimate>(result).total : std::get<JobEstimate>(result).total;
}

const std::string& Estimate::currency() const noexcept {
  return is_pipeline() ? std::get<PipelineEstimate>(result).currency : std::get<JobEstimate>(result).currency;
}

Result<Estimate> estimate_document(const PriceBook& book, const Value& spec, const EstimateOptions& options) {
  if (spec.is_map() && (spec.as_map().contains("steps") || is_usecase_render(spec.as_map()))) {
    BUDCORE_TRY_ASSIGN(PipelineEstimate p, estimate_pipeline(book, spec, options));
    return Estimate{std::move(p)};
  }
  BUDCORE_TRY_ASSIGN(ResourceRequest q, read_job_request(spec));
  BUDCORE_TRY_ASSIGN(JobEstimate e, estimate(book, q, options));
  return Estimate{std::move(e)};
}

Value to_value(const JobEstimate& e) {
  Map m;
  put_job_fields(m, e);
  return Value(std::move(m));
}

Value to_value(const PipelineEstimate& e) {
  Map m;
  m.set("currency", Value(e.currency));
  core::List steps;
  steps.reserve(e.steps.size());
  for (const auto& s : e.steps) {
    Map step;
    step.set("step", Value(s.step));
    put_job_fields(step, s.estimate);
    steps.push_back(Value(std::move(step)));
  }
  m.set("steps", Value(std::move(steps)));
  m.set("total", Value(e.total.amount_string(kEstimateDecimals)));
  m.set("total_min", Value(e.total_min.amount_string(kEstimateDecimals)));
  return Value(std::move(m));
}

Value to_value(const Estimate& e) {
  return std::visit([](const auto& r) { return to_value(r); }, e.result);
}

std::string_view contract_error_code(const Error& e) noexcept {
  if (e.code == core::ErrorCode::NotFound) return "unknown_price";
  if (e.code == core::ErrorCode::Invalid && e.message.starts_with(detail::kMissingField)) return "missing_field";
  return "invalid_value";
}

}  // namespace budcore::cost
