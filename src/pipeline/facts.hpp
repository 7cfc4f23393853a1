// What validation and planning need from a pipeline document, extracted in one pass either
// from a core::Value (facts_value.cpp) or straight from JSON text with simdjson
// (facts_json.cpp), so the 100k-step path never builds a full Value tree.
// Strings are views into the source (the Value or the parser's string buffer), which must
// outlive the Facts: 100k steps then cost no string copies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/pipeline/planner.hpp"
#include "budcore/pipeline/validation.hpp"

#pragma GCC visibility push(hidden)  // private to the library: not exported

namespace budcore::pipeline::detail {

enum class DepKind : std::uint8_t { DependsOn, Then, Else, Parallel };

// One step id named by a step: a depends_on entry or a then/else/parallel target.
struct DepRef {
  std::string_view id;
  DepKind kind = DepKind::DependsOn;
  std::uint32_t index = 0;  // position in its list
};

// A string that holds template syntax; path relative to the step ("config.spec.url").
struct TemplateText {
  std::string path;
  std::string_view text;
};

// Config keys validation looks at, as bits (present and not null).
inline constexpr std::uint32_t kJobType = 1u << 0;
inline constexpr std::uint32_t kDeploymentType = 1u << 1;
inline constexpr std::uint32_t kUrl = 1u << 2;
inline constexpr std::uint32_t kExpression = 1u << 3;
inline constexpr std::uint32_t kThenSteps = 1u << 4;
inline constexpr std::uint32_t kElseSteps = 1u << 5;
inline constexpr std::uint32_t kDurationSeconds = 1u << 6;
inline constexpr std::uint32_t kWaitForEvent = 1u << 7;
inline constexpr std::uint32_t kChannel = 1u << 8;
inline constexpr std::uint32_t kRecipients = 1u << 9;
inline constexpr std::uint32_t kMessage = 1u << 10;
inline constexpr std::uint32_t kFunction = 1u << 11;
inline constexpr std::uint32_t kOutputs = 1u << 12;
inline constexpr std::uint32_t kSteps = 1u << 13;
inline constexpr std::uint32_t kItems = 1u << 14;
inline constexpr std::uint32_t kBody = 1u << 15;
inline constexpr std::uint32_t kEstimatedDuration = 1u << 16;
std::uint32_t config_key_bit(std::string_view key) noexcept;

// A duration field as found: absent, a number, a template string, or something else.
// (Kept small: 100k steps hold two each.)
struct Duration {
  enum class State : std::uint8_t { Absent, Number, Template, Invalid };
  double seconds = 0;
  const core::Value* invalid = nullptr;  // for Invalid: the value as written (the Value path only)
  State state = State::Absent;
};

// Fields ordered by size: 100k steps keep one each, and every byte is page faults.
struct StepFacts {
  std::string_view id;
  std::string_view type_text;
  std::string_view body_type_text;  // LOOP body (config.body) step_type
  std::vector<DepRef> deps;  // depends_on, then_steps, else_steps, parallel steps
  std::vector<TemplateText> templates;
  Duration estimated_duration;  // config.estimated_duration_seconds
  Duration wait_duration;       // config.duration_seconds
  std::uint32_t config_keys = 0;
  std::uint32_t body_config_keys = 0;
  bool has_id = false;
  bool has_type = false;
  bool type_reported = false;  // step_type of the wrong JSON type (already an issue)
  bool body_present = false;
  bool body_is_object = false;
  bool body_has_type = false;
};

// An issue found while extracting, ordered later by `step` (kDocument first).
struct KeyedIssue {
  static constexpr std::size_t kDocument = static_cast<std::size_t>(-1);
  std::size_t step = kDocument;
  Issue issue;
};

struct Facts {
  std::vector<StepFacts> steps;
  std::vector<KeyedIssue> issues;
  bool fatal = false;  // no steps list: nothing further to check
};

// From this many steps on, extraction and analysis split their work across two threads.
inline constexpr std::size_t kTwoThreadsFrom = 8192;

Facts extract_facts(const core::Value& document);
// Owns the parsed JSON that Facts from extract_facts_json point into.
class JsonSource {
 public:
  JsonSource();
  ~JsonSource();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};
// Returns false when the text is not valid JSON or holds something only the Value path
// reports (the caller then takes that path). `padded`: text.data() is followed by at least
// kJsonPadding readable bytes, so the parser need not copy it.
inline constexpr std::size_t kJsonPadding = kPlanTextPadding;
bool extract_facts_json(std::string_view text, bool padded, JsonSource& source, Facts& out);

ValidationReport finish_report(std::vector<KeyedIssue> issues, std::vector<Issue> warnings);

// "steps[7]"
std::string step_path(std::size_t index);
bool looks_like_template(std::string_view s) noexcept;

}  // namespace budcore::pipeline::detail

#pragma GCC visibility pop
