// budcore::pipeline cron schedules: 5-field expressions evaluated in an IANA time zone, with
// next-fire computation. Semantics follow robfig/cron v3 as used by Kubernetes CronJob
// (docs/triggers.md): lists, ranges, steps, month and weekday names, @hourly..@yearly,
// day-of-month/day-of-week OR semantics, and wall-clock matching across DST changes (a time in a
// spring-forward gap never fires that day; a time in a fall-back overlap fires twice).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "budcore/core/result.hpp"
#include "budcore/core/time.hpp"
#include "budcore/core/time_zone.hpp"
#include "budcore/export.h"

namespace budcore::pipeline {

// Time zones and wall-clock times are core's (budcore/core/time_zone.hpp); the names stay here
// for the code that first met them with cron schedules.
using core::CivilTime;
using core::TimeZone;

class BUDCORE_API CronSchedule {
 public:
  // "m h dom mon dow" (each a `*`, number, name, range `a-b`, step `*/n` `a-b/n` `a/n`, or a
  // comma list of those), or @hourly @daily/@midnight @weekly @monthly @yearly/@annually.
  // A leading "TZ=Zone " or "CRON_TZ=Zone " names the zone; `time_zone` is the separate field
  // (Kubernetes' spec.timeZone). Both at once is an error; neither means UTC.
  // Errors are Invalid and name the field ("minute", "hour", "day_of_month", "month",
  // "day_of_week", "schedule", "time_zone") and the offending value.
  static core::Result<CronSchedule> parse(std::string_view expression, std::string_view time_zone = {});

  // The first fire time strictly after `after`, or nullopt when none exists within nine years
  // (e.g. "0 0 30 2 *").
  std::optional<core::Timestamp> next(core::Timestamp after) const;
  // True when t is a fire time (a whole minute whose wall-clock reading matches).
  bool matches(core::Timestamp t) const;

  const std::string& expression() const noexcept { return expression_; }
  const TimeZone& time_zone() const noexcept { return zone_; }

 private:
  CronSchedule(std::string expression, TimeZone zone) : expression_(std::move(expression)), zone_(std::move(zone)) {}
  bool matches_civil(const CivilTime& c) const;
  std::optional<std::int64_t> next_local(std::int64_t local_seconds) const;

  std::string expression_;
  TimeZone zone_;
  std::uint64_t minutes_ = 0;  // bit i: minute i
  std::uint32_t hours_ = 0;
  std::uint32_t days_ = 0;     // bits 1..31
  std::uint16_t months_ = 0;   // bits 1..12
  std::uint8_t weekdays_ = 0;  // bits 0..6, Sunday = 0
  bool day_star_ = false;      // day-of-month was `*`/`?` (robfig's star bit)
  bool weekday_star_ = false;
};

}  // namespace budcore::pipeline
