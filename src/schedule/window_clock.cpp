// Admission windows read in their zone: a window's times of day are wall-clock times there, so
// a UTC instant is shifted by the zone's offset in effect at that instant before comparing.
#include "schedule/timeline_impl.hpp"

namespace budcore::schedule {
namespace {

constexpr std::int64_t kDay = 86'400;

core::Timestamp shift(core::Timestamp t, int offset_seconds) { return t + core::Duration::seconds(offset_seconds); }

core::TimeWindow daily(const Window& w) { return core::TimeWindow{w.start, w.end}; }

}  // namespace

bool WindowClock::open(core::Timestamp t) const { return daily(window_).contains(shift(t, zone_.offset_at(t))); }

core::Timestamp WindowClock::next_open(core::Timestamp t) const {
  core::Timestamp u = t;
  // A few rounds settle any offset change (DST) between t and the opening.
  for (int round = 0; round < 8; ++round) {
    if (open(u)) return u;
    int off = zone_.offset_at(u);
    core::Timestamp candidate = shift(daily(window_).next_open(shift(u, off)), -off);
    auto change = zone_.next_transition(u);
    if (change && *change < candidate) {
      u = *change;
      continue;
    }
    if (open(candidate)) return candidate;
    u = candidate + core::Duration::seconds(1);
  }
  return u;
}

std::optional<core::Timestamp> WindowClock::next_close(core::Timestamp t) const {
  if (window_.start == window_.end) return std::nullopt;
  int off = zone_.offset_at(t);
  core::Timestamp local = shift(t, off);
  std::int64_t s = local.seconds_of_day();
  std::int64_t delta = (window_.end.seconds - s + kDay) % kDay;
  if (delta == 0) delta = kDay;
  // Whole seconds: drop the sub-second part of `local` so the close lands on the boundary.
  std::int64_t frac_ns = local.unix_nanos() - local.unix_seconds() * 1'000'000'000;
  core::Timestamp close_local = local + core::Duration::seconds(delta) - core::Duration::nanoseconds(frac_ns);
  core::Timestamp close = shift(close_local, -off);
  // An offset change before the close moves the wall-clock boundary; read it with the new offset.
  if (auto change = zone_.next_transition(t); change && *change < close) close = shift(close_local, -zone_.offset_at(*change));
  return close > t ? close : t + core::Duration::seconds(1);
}

core::Result<core::Timestamp> next_window_open(const Window& w, core::Timestamp t) {
  auto zone = pipeline::TimeZone::load(w.zone);
  if (!zone) return core::Error::invalid("zone", w.zone, zone.error().message);
  return WindowClock(w, std::move(*zone)).next_open(t);
}

}  // namespace budcore::schedule
