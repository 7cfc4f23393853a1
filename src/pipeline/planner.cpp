// plan_document / plan_text and the contract-3 JSON writer.
#include "budcore/pipeline/planner.hpp"

#include <cmath>

#include "budcore/core/json.hpp"
#include "budcore/core/json_string.hpp"
#include "budcore/core/limits.hpp"
#include "budcore/core/yaml.hpp"
#include "pipeline/analyze.hpp"

namespace budcore::pipeline {
namespace {

bool starts_like_json(std::string_view text) {
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    return c == '{' || c == '[';
  }
  return false;
}

void put_list(std::string& out, const std::vector<std::string>& items) {
  out += '[';
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += ',';
    core::append_json_string(out, items[i]);
  }
  out += ']';
}

void put_number(std::string& out, double x) {
  if (std::floor(x) == x && std::abs(x) < 9.007199254740992e15) {
    out += std::to_string(static_cast<long long>(x));
  } else {
    out += core::format_json_float(x);
  }
}

void put_issues(std::string& out, const std::vector<Issue>& issues) {
  out += '[';
  for (std::size_t i = 0; i < issues.size(); ++i) {
    if (i) out += ',';
    out += "{\"code\":";
    core::append_json_string(out, issues[i].code);
    out += ",\"message\":";
    core::append_json_string(out, issues[i].message);
    out += ",\"path\":";
    core::append_json_string(out, issues[i].path);
    out += '}';
  }
  out += ']';
}

PlanResult parse_failure(const core::Error& e) {
  PlanResult r;
  r.report.errors.push_back({std::string(issue_code::kInvalidDocument), e.message, e.field});
  return r;
}

}  // namespace

PlanResult plan_document(const core::Value& document) {
  return detail::analyze(detail::extract_facts(document), true);
}

PlanResult plan_text(std::string_view text) { return detail::plan_text(text, false); }
PlanResult plan_text_padded(std::string_view text) { return detail::plan_text(text, true); }

namespace detail {

PlanResult plan_text(std::string_view text, bool padded) {
  if (auto st = core::check_input_size(text.size(), {}); !st) return parse_failure(st.error());
  if (starts_like_json(text)) {
    Facts facts;
    JsonSource source;
    if (extract_facts_json(text, padded, source, facts)) return analyze(std::move(facts), true);
  }
  auto doc = core::parse_document(text);
  if (!doc) return parse_failure(doc.error());
  return pipeline::plan_document(*doc);
}

}  // namespace detail

std::string to_json(const PlanResult& result) {
  std::string out;
  if (!result.valid()) {
    out += "{\"valid\":false,\"errors\":";
    put_issues(out, result.report.errors);
    out += '}';
    return out;
  }
  const Plan& p = result.plan;
  std::size_t guess = 64;
  for (const auto& id : p.order) guess += 3 * (id.size() + 3);
  out.reserve(guess);
  out += "{\"valid\":true,\"order\":";
  put_list(out, p.order);
  out += ",\"levels\":[";
  for (std::size_t i = 0; i < p.levels.size(); ++i) {
    if (i) out += ',';
    put_list(out, p.levels[i]);
  }
  out += "],\"critical_path\":";
  put_list(out, p.critical_path);
  out += ",\"critical_path_seconds\":";
  put_number(out, p.critical_path_seconds);
  out += ",\"job_steps\":";
  put_list(out, p.job_steps);
  out += '}';
  return out;
}

}  // namespace budcore::pipeline
