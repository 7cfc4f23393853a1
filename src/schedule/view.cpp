// Device lanes and the HTML schedule view (docs/schedule.md "Pictures").
#include "budcore/schedule/view.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "budcore/core/json.hpp"
#include "budcore/schedule/estimate.hpp"

namespace budcore::schedule {

namespace {

// "nvidia.com/mig-1g.5gb" -> "mig-1g.5gb"; whole GPUs get no suffix.
std::string lane_stem(const std::string& flavor, const std::string& resource) {
  auto slash = resource.rfind('/');
  std::string tail = slash == std::string::npos ? resource : resource.substr(slash + 1);
  if (tail == "gpu") return flavor;
  return flavor + "-" + tail;
}

std::string flavor_of(const JobEstimate& e, const std::string& resource) {
  for (const auto& [ps, res] : e.flavors)
    if (auto it = res.find(resource); it != res.end()) return it->second;
  for (const auto& [ps, res] : e.flavors)
    if (!res.empty()) return res.begin()->second;
  return "default";
}

std::string escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}


const std::string& label_of(const JobEstimate& e) { return e.label.empty() ? e.name : e.label; }

// What the page calls each job, by name: its label, and where labels repeat, the label with the
// end of the name ("train (…5ce3e749)"), or the whole name when those ends repeat too. Python's
// Timeline.labels() follows the same rule.
std::map<std::string, std::string> shown_labels(const TimelineResult& r) {
  std::map<std::string, int> count, seen;
  for (const auto& e : r.jobs) ++count[label_of(e)];
  auto tail = [](const std::string& n) { return n.size() <= 9 ? n : "\u2026" + n.substr(n.size() - 8); };
  std::map<std::string, std::string> out;
  for (const auto& e : r.jobs) {
    const std::string& l = label_of(e);
    out[e.name] = count[l] == 1 || l == e.name ? l : l + " (" + tail(e.name) + ")";
  }
  for (const auto& [name, shown] : out) ++seen[shown];
  for (const auto& e : r.jobs)
    if (std::string& shown = out[e.name]; seen[shown] > 1 && shown != e.name) shown = label_of(e) + " (" + e.name + ")";
  return out;
}

// A scenario without `now` starts at the epoch: its times are offsets, not dates (before
// 2000-01-01 UTC, as Python's schedule.has_clock).
bool has_clock(core::Timestamp t) { return t.unix_seconds() >= 946'684'800; }

// A span as people say it: "45 s", "12 min", "2 h 5 min", "3 d 4 h"; negative spans get "-".
std::string human_span(core::Duration d) {
  std::int64_t s = d.count_ns() / 1'000'000'000;
  std::string sign = s < 0 ? "-" : "";
  s = s < 0 ? -s : s;
  auto part = [](std::int64_t n, const char* unit) { return std::to_string(n) + " " + unit; };
  if (s < 120) return sign + part(s, "s");
  if (s < 3600) return sign + part(s / 60, "min");
  if (s < 172800) return sign + part(s / 3600, "h") + (s % 3600 >= 60 ? " " + part(s % 3600 / 60, "min") : "");
  return sign + part(s / 86400, "d") + (s % 86400 >= 3600 ? " " + part(s % 86400 / 3600, "h") : "");
}

// A relative time: "now", "in 2 h 5 min", "12 min ago".
std::string relative(core::Duration d) {
  if (d.count_ns() == 0) return "now";
  return d.count_ns() > 0 ? "in " + human_span(d) : human_span(core::Duration::nanoseconds(-d.count_ns())) + " ago";
}

// A clock time on the axis, as precise as the span needs (UTC): "14:05:30", "14:05",
// "01-02 14:05".
std::string clock_text(core::Timestamp t, core::Duration span) {
  const std::string iso = t.to_string();  // 2026-01-02T14:05:30Z (maybe with a fraction)
  if (iso.size() < 19) return iso;
  if (span < core::Duration::minutes(10)) return iso.substr(11, 8);
  if (span < core::Duration::hours(20)) return iso.substr(11, 5);
  return iso.substr(5, 5) + " " + iso.substr(11, 5);
}

// An axis tick: the clock time, or the offset from now ("+2 h 5 min") when there is no clock.
std::string tick_text(core::Timestamp t, core::Duration span, core::Timestamp now) {
  if (has_clock(now)) return clock_text(t, span);
  if (t == now) return "now";
  return (t > now ? "+" : "") + human_span(t - now);
}

// "14:05 UTC (in 2 h 5 min)": when, and how far from now; without a clock only how far.
std::string when_text(core::Timestamp t, core::Timestamp now) {
  if (!has_clock(now)) return relative(t - now);
  const std::string iso = t.to_string();
  return (iso.size() >= 16 ? iso.substr(0, 10) + " " + iso.substr(11, 5) + " UTC" : iso) + " (" + relative(t - now) + ")";
}

}  // namespace

std::vector<Lane> assign_lanes(const TimelineResult& result) {
  struct Group {
    std::string flavor, resource, stem;
    std::vector<core::Timestamp> free_at;  // per lane: when its last block ends
    std::vector<std::size_t> lane_index;
  };
  std::map<std::string, Group> groups;  // stem -> group
  std::vector<Lane> lanes;
  std::vector<const JobEstimate*> order;
  for (const auto& e : result.jobs) order.push_back(&e);
  std::stable_sort(order.begin(), order.end(), [](const JobEstimate* a, const JobEstimate* b) { return a->start < b->start; });
  auto take = [&](const std::string& flavor, const std::string& resource, const std::string& stem, std::int64_t n,
                  const JobEstimate& e) {
    Group& g = groups[stem];
    if (g.stem.empty()) g = Group{flavor, resource, stem, {}, {}};
    for (std::size_t i = 0; i < g.free_at.size() && n > 0; ++i) {
      if (g.free_at[i] > e.start) continue;
      g.free_at[i] = e.end;
      lanes[g.lane_index[i]].blocks.push_back({e.name, e.start, e.end, !e.running && !e.finished});
      --n;
    }
    for (; n > 0; --n) {
      g.free_at.push_back(e.end);
      g.lane_index.push_back(lanes.size());
      Lane lane{stem + "-" + std::to_string(g.free_at.size()), flavor, resource, {}};
      lane.blocks.push_back({e.name, e.start, e.end, !e.running && !e.finished});
      lanes.push_back(std::move(lane));
    }
  };
  for (const JobEstimate* e : order) {
    if (e->end <= e->start && e->gpus.empty()) continue;
    if (!e->gpus.empty()) {
      for (const auto& [res, n] : e->gpus) {
        std::string flavor = flavor_of(*e, res);
        take(flavor, res, lane_stem(flavor, res), std::max<std::int64_t>(n, 1), *e);
      }
    } else if (!e->flavors.empty()) {
      take(flavor_of(*e, "cpu"), "cpu", "cpu-pool", 1, *e);
    }
  }
  // Accelerator lanes first (by name), then the CPU pool.
  std::stable_sort(lanes.begin(), lanes.end(), [](const Lane& a, const Lane& b) {
    bool ac = a.resource == "cpu", bc = b.resource == "cpu";
    if (ac != bc) return !ac;
    if (a.name.size() != b.name.size() && a.name.substr(0, a.name.rfind('-')) == b.name.substr(0, b.name.rfind('-')))
      return a.name.size() < b.name.size();  // a100-2 before a100-10
    return a.name < b.name;
  });
  return lanes;
}

std::string render_html(const TimelineResult& r, const HtmlOptions& options) {
  std::vector<Lane> lanes = assign_lanes(r);
  core::Timestamp t0 = r.now, t1 = r.now + core::Duration::seconds(1);
  for (const auto& e : r.jobs) {
    t0 = std::min(t0, e.start);
    t1 = std::max(t1, e.end);
  }
  const double span = static_cast<double>((t1 - t0).count_ns());
  const int label_w = 170, width = 1100, row_h = 28, top = 40;
  const int plot_w = width - label_w - 20;
  auto x_of = [&](core::Timestamp t) { return label_w + plot_w * static_cast<double>((t - t0).count_ns()) / span; };
  // One colour per pipeline (standalone jobs grey), in order of first appearance.
  static const char* kPalette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
                                   "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
  std::map<std::string, std::string> colour;
  std::map<std::string, const JobEstimate*> by_name;
  for (const auto& e : r.jobs) {
    by_name[e.name] = &e;
    if (!e.pipeline.empty() && !colour.count(e.pipeline))
      colour[e.pipeline] = kPalette[colour.size() % (sizeof kPalette / sizeof *kPalette)];
  }
  auto colour_of = [&](const JobEstimate& e) { return e.pipeline.empty() ? std::string("#7f7f7f") : colour[e.pipeline]; };

  std::string h;
  h += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + escape(options.title) + "</title>\n";
  h += "<style>body{font-family:sans-serif;margin:16px;color:#222}table{border-collapse:collapse;margin-top:12px}"
       "td,th{border:1px solid #ccc;padding:3px 8px;font-size:13px;text-align:left}th{background:#f0f0f0}"
       ".lane-label{font-size:12px}.axis{font-size:11px;fill:#555}rect.block:hover{stroke:#000;stroke-width:2}"
       ".legend span{display:inline-block;width:12px;height:12px;margin:0 4px 0 12px;vertical-align:middle}</style>\n";
  h += "</head><body>\n<h1>" + escape(options.title) + "</h1>\n";
  const std::map<std::string, std::string> shown = shown_labels(r);
  h += "<p>now: " + escape(has_clock(r.now) ? r.now.to_string() : std::string("the scenario's start")) + " &middot; makespan: " + escape(human_span(r.makespan)) + " &middot; " +
       std::to_string(r.jobs.size()) + " jobs, " + std::to_string(lanes.size()) + " lanes</p>\n";
  const int height = top + row_h * static_cast<int>(std::max<std::size_t>(lanes.size(), 1)) + 30;
  h += "<svg id=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(width) + "\" height=\"" +
       std::to_string(height) + "\" role=\"img\" aria-label=\"schedule lanes\">\n";
  h += "<defs><pattern id=\"est\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
       "<rect width=\"6\" height=\"6\" fill=\"white\" fill-opacity=\"0.0\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" "
       "stroke=\"white\" stroke-width=\"3\" stroke-opacity=\"0.6\"/></pattern></defs>\n";
  // Time axis: 8 ticks.
  for (int i = 0; i <= 8; ++i) {
    double x = label_w + plot_w * i / 8.0;
    core::Timestamp t = t0 + core::Duration::nanoseconds(static_cast<std::int64_t>(span * i / 8.0));
    h += "<line x1=\"" + fmt(x) + "\" y1=\"" + std::to_string(top - 8) + "\" x2=\"" + fmt(x) + "\" y2=\"" +
         std::to_string(height - 24) + "\" stroke=\"#ddd\"/>";
    h += "<text class=\"axis\" x=\"" + fmt(x) + "\" y=\"" + std::to_string(top - 12) + "\" text-anchor=\"" + (i == 8 ? "end" : i == 0 ? "start" : "middle") + "\">" +
         escape(tick_text(t, t1 - t0, r.now)) + "</text>\n";
  }
  if (r.now > t0) {
    double x = x_of(r.now);
    h += "<line x1=\"" + fmt(x) + "\" y1=\"" + std::to_string(top - 8) + "\" x2=\"" + fmt(x) + "\" y2=\"" +
         std::to_string(height - 24) + "\" stroke=\"#d00\" stroke-dasharray=\"4 3\"/>\n";
  }
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    const Lane& lane = lanes[i];
    int y = top + row_h * static_cast<int>(i);
    h += "<g class=\"lane\" data-lane=\"" + escape(lane.name) + "\">";
    h += "<text class=\"lane-label\" x=\"4\" y=\"" + std::to_string(y + row_h / 2 + 4) + "\">" + escape(lane.name) + "</text>";
    h += "<line x1=\"" + std::to_string(label_w) + "\" y1=\"" + std::to_string(y + row_h) + "\" x2=\"" +
         std::to_string(width - 20) + "\" y2=\"" + std::to_string(y + row_h) + "\" stroke=\"#eee\"/>";
    for (const auto& b : lane.blocks) {
      const JobEstimate& e = *by_name.at(b.job);
      double x = x_of(b.start), w = std::max(2.0, x_of(b.end) - x);
      std::string tip = shown.at(e.name) + (label_of(e) != e.name ? " [" + e.name + "]" : std::string()) +
                        (e.pipeline.empty() ? std::string(" (standalone)") : " (pipeline " + e.pipeline + ")") +
                        "\n" + (b.estimated ? "estimated " : "actual ") + "start " + when_text(b.start, r.now) +
                        "\nend " + when_text(b.end, r.now) + "\nqueue " + e.cluster_queue;
      if (e.wait != WaitReason::None) tip += "\nwaited for " + std::string(to_string(e.wait)) + ": " + e.wait_detail;
      if (e.deadline_met) tip += *e.deadline_met ? "\ndeadline met" : "\ndeadline missed";
      h += "<rect class=\"block\" data-job=\"" + escape(e.name) + "\" x=\"" + fmt(x) + "\" y=\"" + std::to_string(y + 4) +
           "\" width=\"" + fmt(w) + "\" height=\"" + std::to_string(row_h - 8) + "\" fill=\"" + colour_of(e) +
           "\" rx=\"3\"><title>" + escape(tip) + "</title></rect>";
      if (b.estimated)
        h += "<rect x=\"" + fmt(x) + "\" y=\"" + std::to_string(y + 4) + "\" width=\"" + fmt(w) + "\" height=\"" +
             std::to_string(row_h - 8) + "\" fill=\"url(#est)\" pointer-events=\"none\"/>";
      if (w > 60)
        h += "<text x=\"" + fmt(x + 4) + "\" y=\"" + std::to_string(y + row_h / 2 + 4) +
             "\" font-size=\"11\" fill=\"white\" pointer-events=\"none\">" + escape(shown.at(e.name)) + "</text>";
    }
    h += "</g>\n";
  }
  h += "</svg>\n<div class=\"legend\">";
  for (const auto& [p, c] : colour) h += "<span style=\"background:" + c + "\"></span>pipeline " + escape(p);
  h += "<span style=\"background:#7f7f7f\"></span>standalone job<span style=\"background:repeating-linear-gradient(45deg,#888,#888 2px,#ddd 2px,#ddd 4px)\"></span>estimated</div>\n";
  // Queued jobs (not started at `now`), by estimated start.
  h += "<h2>Queued jobs</h2>\n<table id=\"queued\"><tr><th>Priority</th><th>Job</th><th>Pipeline</th><th>GPUs</th>"
       "<th>Queue</th><th>Est. start</th><th>Est. end</th><th>Waits for</th></tr>\n";
  for (const auto& e : r.jobs) {
    if (e.running || e.finished) continue;
    std::string gpus;
    for (const auto& [res, n] : e.gpus) gpus += (gpus.empty() ? "" : ", ") + std::to_string(n) + "x" + flavor_of(e, res);
    h += "<tr><td>" + std::to_string(e.priority) + "</td><td title=\"" + escape(e.name) + "\">" + escape(shown.at(e.name)) + "</td><td>" +
         escape(e.pipeline.empty() ? "(standalone)" : e.pipeline) + "</td><td>" + escape(gpus.empty() ? "-" : gpus) +
         "</td><td>" + escape(e.cluster_queue) + "</td><td>" + escape(when_text(e.start, r.now)) + "</td><td>" +
         escape(when_text(e.end, r.now)) + "</td><td>" +
         escape(e.wait == WaitReason::None ? std::string("-") : std::string(to_string(e.wait)) + ": " + e.wait_detail) +
         "</td></tr>\n";
  }
  h += "</table>\n";
  if (!r.never.empty()) {
    h += "<h2>Never admitted</h2>\n<table id=\"never\"><tr><th>Job</th><th>Why</th></tr>\n";
    for (const auto& [name, why] : r.never) h += "<tr><td>" + escape(name) + "</td><td>" + escape(why) + "</td></tr>\n";
    h += "</table>\n";
  }
  h += "</body></html>\n";
  return h;
}

}  // namespace budcore::schedule
