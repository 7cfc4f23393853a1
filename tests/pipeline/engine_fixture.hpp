// Shared helpers for the engine tests: a virtual clock, the simulated job runner, a recording
// sink, and small in-process HttpClient/Notifier fakes (no HTTP server is needed for them).
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "budcore/core/json.hpp"
#include "budcore/pipeline/engine.hpp"

namespace budcore::pipeline::testing {

inline core::Value doc(std::string_view json) {
  auto v = core::parse_json(json);
  EXPECT_TRUE(v.has_value()) << (v ? "" : v.error().describe());
  return v ? *v : core::Value();
}

struct RecordingSink final : StateSink {
  std::vector<Transition> transitions;
  core::Value last_state;
  core::Status save(const Transition& t, const RunState& state) override {
    transitions.push_back(t);
    last_state = state.to_value();
    return {};
  }
  // "step:from->to" lines, for compact assertions.
  std::vector<std::string> lines() const {
    std::vector<std::string> out;
    for (const auto& t : transitions) out.push_back(t.step + ":" + t.from + "->" + t.to);
    return out;
  }
  bool saw(const std::string& line) const {
    for (const auto& l : lines())
      if (l == line) return true;
    return false;
  }
};

struct FakeHttp final : core::HttpClient {
  std::vector<core::HttpRequest> requests;
  std::vector<core::HttpResponse> script;  // consumed in order; the last one repeats
  core::Result<core::HttpResponse> send(const core::HttpRequest& r) override {
    requests.push_back(r);
    if (script.empty()) return core::Error::make(core::ErrorCode::Io, "connection refused");
    core::HttpResponse resp = script.front();
    if (script.size() > 1) script.erase(script.begin());
    return resp;
  }
};

struct FakeNotifier final : core::Notifier {
  std::vector<core::Notification> sent;
  core::Status notify(const core::Notification& n) override {
    sent.push_back(n);
    return {};
  }
};

struct Harness {
  core::VirtualClock clock;
  SimJobOptions sim_options;
  std::unique_ptr<SimJobRunner> jobs;
  FakeHttp http;
  FakeNotifier notifier;
  FunctionRegistry functions;
  RecordingSink sink;

  EngineDeps deps() {
    if (!jobs) jobs = std::make_unique<SimJobRunner>(clock, sim_options);
    return EngineDeps{&clock, jobs.get(), &http, &notifier, &functions, &sink};
  }
  Engine make(const core::Value& d, EngineOptions o = {}) {
    auto e = Engine::create(d, deps(), std::move(o));
    EXPECT_TRUE(e.has_value()) << (e ? "" : e.error().describe());
    return std::move(e).value();
  }
  PipelineStatus run(Engine& e) {
    auto s = e.run_virtual(clock);
    if (std::getenv("ENGINE_TRACE")) {
      for (const auto& t : sink.transitions) std::fprintf(stderr, "%s\n", core::to_json(t.to_value()).c_str());
    }
    EXPECT_TRUE(s.has_value()) << (s ? "" : s.error().describe());
    return s ? *s : PipelineStatus::Failed;
  }
  static StepState state_of(const Engine& e, std::string_view id) {
    const StepRun* r = e.state().find(id);
    EXPECT_NE(r, nullptr) << id;
    return r ? r->state : StepState::Pending;
  }
  static core::Value outputs_of(const Engine& e, std::string_view id) {
    const StepRun* r = e.state().find(id);
    return r ? r->outputs : core::Value();
  }
  double elapsed(const Engine& e) const {
    return static_cast<double>((clock.now() - *e.state().started_at).count_ns()) / 1e9;
  }
};

}  // namespace budcore::pipeline::testing
