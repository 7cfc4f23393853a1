// C ABI over budcore::schedule: estimates, replay, the HTML view and a live timeline handle.
#include "budcore/core/json.hpp"
#include "budcore/schedule/estimate.hpp"
#include "budcore/schedule/replay.hpp"
#include "budcore/schedule/view.hpp"
#include "capi_internal.hpp"

struct budcore_schedule_timeline {
  budcore::schedule::Timeline timeline;
};

namespace {

namespace capi = budcore::capi;
namespace schedule = budcore::schedule;

// An empty output buffer and UTF-8 input; sets the error and returns false otherwise.
bool prepare(budcore_buf* out, const char* s, size_t len, const char* field, std::string_view& text) {
  return capi::empty_out(out) && capi::input_text(s, len, field, text);
}

budcore::core::Result<schedule::Timeline> timeline_of(std::string_view text) {
  auto in = schedule::parse_estimate(text);
  if (!in) return std::move(in).error();
  return schedule::Timeline::create(std::move(*in));
}

}  // namespace

extern "C" int budcore_schedule_estimate(budcore_buf* out, const char* scenario_json, size_t len, unsigned flags) {
  return capi::guard([&]() -> int {
    std::string_view text;
    if (!prepare(out, scenario_json, len, "scenario_json", text)) return budcore_error_last()->code;
    auto tl = timeline_of(text);
    if (!tl) return capi::set_error(tl.error());
    return capi::fill_buf(out, schedule::to_json(tl->result(), {-1, (flags & BUDCORE_SCHEDULE_DETAILS) != 0}));
  });
}

extern "C" int budcore_schedule_replay(budcore_buf* out, const char* config_json, size_t len) {
  return capi::guard([&]() -> int {
    std::string_view text;
    if (!prepare(out, config_json, len, "config_json", text)) return budcore_error_last()->code;
    schedule::ReplayConfig config;
    if (text == "baseline") {
      config = schedule::kueue_baseline();
    } else {
      auto doc = budcore::core::parse_json(text);
      if (!doc) return capi::set_error(doc.error());
      auto parsed = schedule::parse_replay_config(*doc);
      if (!parsed) return capi::set_error(parsed.error());
      config = std::move(*parsed);
    }
    auto report = schedule::replay(config);
    if (!report) return capi::set_error(report.error());
    return capi::fill_buf(out, budcore::core::to_json(schedule::to_value(*report)));
  });
}

extern "C" int budcore_schedule_render_html(budcore_buf* out, const char* scenario_json, size_t len) {
  return capi::guard([&]() -> int {
    std::string_view text;
    if (!prepare(out, scenario_json, len, "scenario_json", text)) return budcore_error_last()->code;
    auto tl = timeline_of(text);
    if (!tl) return capi::set_error(tl.error());
    return capi::fill_buf(out, schedule::render_html(tl->result(), {}));
  });
}

extern "C" int budcore_schedule_timeline_new(budcore_schedule_timeline** out, const char* scenario_json, size_t len) {
  return capi::guard([&]() -> int {
    if (out == nullptr) return capi::set_error(BUDCORE_EINVALID, "output handle pointer is NULL", "out");
    *out = nullptr;
    std::string_view text;
    if (!capi::input_text(scenario_json, len, "scenario_json", text)) return budcore_error_last()->code;
    auto tl = timeline_of(text);
    if (!tl) return capi::set_error(tl.error());
    *out = new budcore_schedule_timeline{std::move(*tl)};
    return BUDCORE_OK;
  });
}

extern "C" void budcore_schedule_timeline_free(budcore_schedule_timeline* timeline) { delete timeline; }

extern "C" int budcore_schedule_timeline_result(budcore_buf* out, const budcore_schedule_timeline* timeline,
                                                unsigned flags) {
  return capi::guard([&]() -> int {
    std::string_view unused;
    if (!prepare(out, nullptr, 0, "out", unused)) return budcore_error_last()->code;
    if (timeline == nullptr) return capi::set_error(BUDCORE_EINVALID, "timeline handle is NULL", "timeline");
    return capi::fill_buf(out, schedule::to_json(timeline->timeline.result(), {-1, (flags & BUDCORE_SCHEDULE_DETAILS) != 0}));
  });
}

extern "C" int budcore_schedule_timeline_apply(budcore_schedule_timeline* timeline, const char* event_json,
                                               size_t len) {
  return capi::guard([&]() -> int {
    if (timeline == nullptr) return capi::set_error(BUDCORE_EINVALID, "timeline handle is NULL", "timeline");
    std::string_view text;
    if (!capi::input_text(event_json, len, "event_json", text)) return budcore_error_last()->code;
    auto event = budcore::core::parse_json(text);
    if (!event) return capi::set_error(event.error());
    if (auto st = schedule::apply_event(timeline->timeline, *event); !st) return capi::set_error(st.error());
    return BUDCORE_OK;
  });
}

// The names before the layer prefix: released symbols, kept as aliases.
extern "C" int budcore_timeline_new(budcore_timeline** out, const char* scenario_json, size_t len) {
  return budcore_schedule_timeline_new(out, scenario_json, len);
}

extern "C" void budcore_timeline_free(budcore_timeline* timeline) { budcore_schedule_timeline_free(timeline); }

extern "C" int budcore_timeline_result(budcore_buf* out, const budcore_timeline* timeline, unsigned flags) {
  return budcore_schedule_timeline_result(out, timeline, flags);
}

extern "C" int budcore_timeline_apply(budcore_timeline* timeline, const char* event_json, size_t len) {
  return budcore_schedule_timeline_apply(timeline, event_json, len);
}
