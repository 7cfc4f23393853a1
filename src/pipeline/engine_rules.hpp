// Small rules the pipeline engine's files share (engine.cpp, engine_state.cpp, engine_steps.cpp).
#pragma once

#include <string>

#include "budcore/core/json.hpp"
#include "pipeline/engine_impl.hpp"

#pragma GCC visibility push(hidden)  // private to the library: not exported

namespace budcore::pipeline::detail {

using core::Value;

// An HTTP refusal: 429 and 5xx are transient (`errored`, retried by API_CALL's default
// policy), any other status is the request's own failure.
inline StepState refusal_state(int http_status) {
  return http_status == 429 || http_status >= 500 ? StepState::Errored : StepState::Failed;
}

inline bool failed_like(StepState s) { return s == StepState::Failed || s == StepState::Errored || s == StepState::Cancelled; }
inline bool main_like(const NodeDef& d) { return d.kind == NodeKind::Main || d.kind == NodeKind::Iteration; }

// The config a step resolves for itself: a LOOP's body is resolved per iteration instead.
inline Value own_config(const NodeDef& d) {
  if (d.type != StepType::Loop || !d.config.is_map()) return d.config;
  Value c = d.config;
  c.mutable_map().erase("body");
  return c;
}

inline std::string header_value(const Value& v) { return v.is_string() ? v.as_string() : core::to_json(v); }

}  // namespace budcore::pipeline::detail

namespace budcore::pipeline {
// What the engine's files (engine.cpp, engine_state.cpp, engine_steps.cpp) all read.
using core::Value;
using detail::failed_like;
using detail::header_value;
using detail::main_like;
using detail::NodeDef;
using detail::NodeKind;
using detail::own_config;
using detail::refusal_state;
using detail::TriggerRule;
}  // namespace budcore::pipeline

#pragma GCC visibility pop
