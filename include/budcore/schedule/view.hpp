// The cluster schedule view (docs/schedule.md "Pictures"): admitted jobs on device lanes (A100-1,
// A100-2, T4-1, MIG slices...) and a CPU pool, as data and as one self-contained HTML page.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "budcore/export.h"
#include "budcore/schedule/timeline.hpp"

namespace budcore::schedule {

struct LaneBlock {
  std::string job;  // output name
  core::Timestamp start, end;
  bool estimated = true;  // not yet started (or not yet ended) when the timeline was made
};

struct Lane {
  std::string name;      // "a100-1", "a100-mig-1g.5gb-2", "cpu-pool-1"
  std::string flavor;
  std::string resource;  // "nvidia.com/gpu", a MIG profile, or "cpu"
  std::vector<LaneBlock> blocks;  // in time order, never overlapping
};

// Jobs holding accelerators take that many lanes of their flavor and resource (the lowest
// numbered free ones); jobs with cpu/memory only go to CPU pool lanes; jobs that hold no
// cluster resources are not shown. Deterministic.
BUDCORE_API std::vector<Lane> assign_lanes(const TimelineResult& result);

struct HtmlOptions {
  std::string title = "budcore schedule";
};

// One HTML page (inline SVG and CSS, no script fetched from the network): lanes on a time axis
// (estimated blocks hatched), the queued-jobs table, jobs that never run, and hover
// details (an SVG <title> per block).
BUDCORE_API std::string render_html(const TimelineResult& result, const HtmlOptions& options);

}  // namespace budcore::schedule
