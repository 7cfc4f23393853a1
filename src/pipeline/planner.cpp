// plan_document / plan_text and the contract-3 JSON writer.
#include "budcore/pipeline/planner.hpp"

#include <cmath>
#include <cstdio>

#include "budcore/core/json.hpp"
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

// JSON string escaping. Ids are almost always plain: those are appended whole (a 100k-step
// plan writes 300k of them).
void put_string(std::string& out, std::string_view s) {
  out += '"';
  bool plain = true;
  for (unsigned char c : s) plain &= c >= 0x20 && c != '"' && c != '\\';
  if (plain) {
    out += s;
    out += '"';
    return;
  }
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
}

void put_list(std::string& out, const std::vector<std::string>& items) {
  out += '[';
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += ',';
    put_string(out, items[i]);
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
    put_string(out, issues[i].code);
    out += ",\"message\":";
    put_string(out, issues[i].message);
    out += ",\"path\":";
    put_string(out, issues[i].path);
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
