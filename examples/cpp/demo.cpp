// budcore_demo <examples dir>: loads the source design's RAG pipeline and the example job specs,
// validates every job (each JOB step's config is turned into a job document first) and prints
// a summary a person can read. Uses the public C++ API only (include/budcore/**).
//
// Exit 0 when every example validates, 1 when one does not, 2 on a usage error.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "budcore/c/version.h"
#include "budcore/core/json.hpp"
#include "budcore/core/value.hpp"
#include "budcore/core/yaml.hpp"
#include "budcore/job/job.hpp"

namespace fs = std::filesystem;
using budcore::core::Map;
using budcore::core::Value;

namespace {

// Stand-ins for what the platform fills in on submit (tenant and project of the caller, the
// pipeline run that creates the job).
constexpr const char* kDemoTenant = "00000000-0000-4000-8000-00000000a001";
constexpr const char* kDemoProject = "00000000-0000-4000-8000-00000000b001";
constexpr const char* kDemoPipeline = "00000000-0000-4000-8000-00000000c001";

std::string str_or(const Value* v, std::string fallback = "-") {
  if (v == nullptr || v->is_null()) return fallback;
  if (v->is_string()) return v->as_string();
  return budcore::core::to_json(*v);
}

std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

// The Job schema's keys a JOB step config may carry as they are. The rest of the step config
// (component_ref, optimize_with_budsim) says how to build the spec, so it goes into spec.
bool is_job_key(std::string_view key) {
  static constexpr std::string_view kKeys[] = {
      "job_type",   "deployment_type", "spec",       "cluster_id", "gpu_type",
      "gpu_count",  "cpu_cores",       "memory_gb",  "storage_gb", "estimated_duration_seconds",
      "max_duration_seconds", "time_window_start", "time_window_end", "deadline",
      "priority",   "preemptible",     "preempts_others", "max_retries", "budget_limit", "currency"};
  return std::find(std::begin(kKeys), std::end(kKeys), key) != std::end(kKeys);
}

// JOB step -> job document: the step's name names the job, tenant/project/pipeline ids are
// demo placeholders, and config keys outside the Job schema move into spec.
Value job_document_from_step(const Value& step) {
  Map doc;
  doc.set("name", Value(str_or(step.find("name"), "unnamed-step")));
  doc.set("tenant_id", kDemoTenant);
  doc.set("project_id", kDemoProject);
  doc.set("pipeline_id", kDemoPipeline);
  Map spec;
  if (const Value* config = step.find("config"); config != nullptr && config->is_map()) {
    if (const Value* s = config->find("spec"); s != nullptr && s->is_map()) spec = s->as_map();
    for (const auto& [key, value] : config->as_map()) {
      if (key == "spec") continue;
      if (is_job_key(key)) doc.set(key, value);
      else spec.set(key, value);
    }
  }
  doc.set("spec", Value(std::move(spec)));
  return Value(std::move(doc));
}

struct Tally {
  int valid = 0;
  int invalid = 0;
};

std::string resources_text(const budcore::job::Job& job) {
  auto res = job.resources();
  if (!res) return "resources: " + res.error().describe();
  std::vector<std::string> parts;
  for (const auto& [name, q] : res->items()) parts.push_back(name + "=" + q.to_string());
  return join(parts, " ");
}

// Validates one job document and prints its summary lines.
void report_job(const std::string& label, const Value& doc, Tally& tally) {
  auto job = budcore::job::Job::from_value(doc);
  if (!job) {
    ++tally.invalid;
    std::cout << "  " << label << "\n      INVALID  " << job.error().describe() << "\n";
    return;
  }
  ++tally.valid;
  const auto& j = *job;
  std::cout << "  " << label << "  ->  " << j.name << "\n"
            << "      " << to_string(j.job_type) << "/" << to_string(j.deployment_type)
            << "  priority " << to_string(j.priority)
            << (j.effectively_preemptible() ? " (preemptible)" : "") << "\n"
            << "      requests " << resources_text(j);
  if (j.gpu_type) std::cout << "  on " << *j.gpu_type;
  std::cout << "\n";
  std::vector<std::string> timing;
  if (j.estimated_duration_seconds) timing.push_back("estimated " + std::to_string(*j.estimated_duration_seconds) + "s");
  if (j.max_duration_seconds) timing.push_back("timeout " + std::to_string(*j.max_duration_seconds) + "s");
  if (j.time_window) timing.push_back("window " + j.time_window->start.to_string() + "-" + j.time_window->end.to_string() + " UTC");
  if (j.deadline) timing.push_back("deadline " + j.deadline->to_string());
  if (j.budget_limit) timing.push_back("budget " + j.budget_limit->to_string());
  if (!timing.empty()) std::cout << "      " << join(timing, ", ") << "\n";
  std::cout << "      valid\n";
}

int show_pipeline(const fs::path& file, Tally& tally) {
  auto doc = budcore::core::load_document_file(file.string());
  if (!doc) {
    std::cout << file.string() << ": " << doc.error().describe() << "\n";
    ++tally.invalid;
    return 1;
  }
  const Value* pipeline = doc->find("pipeline");
  const Value* steps = doc->find("steps");
  if (pipeline == nullptr || steps == nullptr || !steps->is_list()) {
    std::cout << file.string() << ": not a pipeline document (needs \"pipeline\" and \"steps\")\n";
    ++tally.invalid;
    return 1;
  }
  std::cout << "Pipeline " << str_or(pipeline->find("name")) << " (" << str_or(pipeline->find("id"))
            << "), trigger " << str_or(pipeline->find("trigger_type")) << ", " << steps->size()
            << " steps  [" << file.filename().string() << "]\n";
  if (const Value* params = pipeline->find("parameters"); params != nullptr && params->is_map()) {
    for (const auto& [key, value] : params->as_map()) std::cout << "  param " << key << " = " << str_or(&value) << "\n";
  }
  std::cout << "\n  step     name                   type          depends on\n";
  for (const Value& step : steps->as_list()) {
    std::vector<std::string> deps;
    if (const Value* d = step.find("depends_on"); d != nullptr && d->is_list())
      for (const Value& x : d->as_list()) deps.push_back(str_or(&x));
    char line[160];
    std::snprintf(line, sizeof line, "  %-8s %-22s %-13s %s", str_or(step.find("id")).c_str(),
                  str_or(step.find("name")).c_str(), str_or(step.find("step_type")).c_str(),
                  deps.empty() ? "-" : join(deps, ", ").c_str());
    std::cout << line;
    if (const Value* cond = step.find("condition"); cond != nullptr && cond->is_string())
      std::cout << "   if " << cond->as_string();
    // A CONDITION step gates the steps of its branches (an implicit dependency).
    for (const char* branch : {"then_steps", "else_steps"}) {
      const Value* ids = step.find_path(std::string("config.") + branch);
      if (ids == nullptr || !ids->is_list() || ids->as_list().empty()) continue;
      std::vector<std::string> names;
      for (const Value& x : ids->as_list()) names.push_back(str_or(&x));
      std::cout << "   " << (branch[0] == 't' ? "then " : "else ") << join(names, ", ");
    }
    std::cout << "\n";
  }

  std::cout << "\nJobs created by the JOB steps\n";
  for (const Value& step : steps->as_list()) {
    if (str_or(step.find("step_type")) != "JOB") continue;
    report_job(str_or(step.find("id")) + " " + str_or(step.find("name")), job_document_from_step(step), tally);
  }
  return 0;
}

void show_job_specs(const fs::path& dir, Tally& tally) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    auto ext = entry.path().extension().string();
    if (entry.is_regular_file() && (ext == ".json" || ext == ".yaml" || ext == ".yml")) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  std::cout << "\nJob specs in " << dir.string() << "\n";
  if (ec || files.empty()) {
    std::cout << "  (none found)\n";
    ++tally.invalid;
    return;
  }
  for (const auto& f : files) {
    auto doc = budcore::core::load_document_file(f.string());
    if (!doc) {
      ++tally.invalid;
      std::cout << "  " << f.filename().string() << "\n      INVALID  " << doc.error().describe() << "\n";
      continue;
    }
    report_job(f.filename().string(), *doc, tally);
  }
}

// What a caller sees when a document is wrong: the field, the value and why.
void show_rejections() {
  std::cout << "\nWhat a rejected job looks like\n";
  const char* bad[] = {
      R"({"name": "typo", "job_type": "batch", "deployment_type": "docker", "gpu_cont": 2})",
      R"({"name": "Bad_Name", "job_type": "batch", "deployment_type": "docker"})",
      R"({"name": "big", "job_type": "training", "deployment_type": "docker", "cpu_cores": "2.0005"})",
  };
  for (const char* text : bad) {
    auto job = budcore::job::Job::from_json(text);
    std::cout << "  " << text << "\n      -> "
              << (job ? std::string("accepted (unexpected)") : job.error().describe()) << "\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " <examples dir>\n";
    return 2;
  }
  const fs::path root = argv[1];
  std::cout << "budcore " << BUDCORE_VERSION_STRING << " demo: " << root.string() << "\n\n";
  Tally tally;
  show_pipeline(root / "specs" / "rag-pipeline.json", tally);
  show_job_specs(root / "specs" / "jobs", tally);
  show_rejections();
  std::cout << "\n" << tally.valid + tally.invalid << " jobs checked: " << tally.valid << " valid, "
            << tally.invalid << " invalid\n";
  return tally.invalid == 0 ? 0 : 1;
}
