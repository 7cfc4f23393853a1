// IANA time zones and wall-clock (civil) times: what cron schedules, time windows and
// calendar rollups read local times with.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "budcore/core/result.hpp"
#include "budcore/core/time.hpp"
#include "budcore/export.h"

namespace budcore::core {

// A broken-down wall-clock time.
struct CivilTime {
  int year = 1970;
  int month = 1;   // 1..12
  int day = 1;     // 1..31
  int hour = 0;    // 0..23
  int minute = 0;  // 0..59
  int second = 0;  // 0..59
  friend bool operator==(const CivilTime&, const CivilTime&) = default;
};

// A time zone of the IANA database, read from the system's TZif files ($TZDIR, else
// /usr/share/zoneinfo). Times past the file's last transition follow its POSIX TZ footer rule.
// Immutable; copies share the loaded data; thread-safe.
class BUDCORE_API TimeZone {
 public:
  // "UTC", "Etc/UTC", "America/New_York". An unknown or malformed zone is Invalid (field
  // "time_zone"); an unreadable file is Io.
  static Result<TimeZone> load(std::string_view name);
  static TimeZone utc();

  const std::string& name() const noexcept;
  // Seconds east of UTC in effect at t.
  int offset_at(Timestamp t) const;
  // The first offset change strictly after t, if any.
  std::optional<Timestamp> next_transition(Timestamp t) const;
  CivilTime to_civil(Timestamp t) const;

  struct Impl;

 private:
  explicit TimeZone(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
};

}  // namespace budcore::core
