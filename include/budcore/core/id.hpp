// budcore::core::Id — a UUID. New ids are version 7 (RFC 9562): 48 bits of Unix milliseconds
// then random bits, so ids sort by creation time (good for B-tree indexes and keyset paging).
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "budcore/core/result.hpp"
#include "budcore/core/time.hpp"

namespace budcore::core {

class Clock;

class BUDCORE_API Id {
 public:
  constexpr Id() noexcept = default;  // the nil UUID
  // A v7 id from the clock's time; ids made by one process are strictly increasing even
  // within one millisecond (RFC 9562 method 3 monotonic counter). Thread-safe.
  static Id generate(const Clock& clock);
  static Id generate();  // system clock
  // "0190e6f4-5c3a-7abc-8def-0123456789ab" in any case; also accepts the 32-hex form.
  static Result<Id> parse(std::string_view text);
  static Id from_bytes(const std::array<std::uint8_t, 16>& bytes) noexcept { Id i; i.b_ = bytes; return i; }

  std::string to_string() const;  // lower-case 8-4-4-4-12
  const std::array<std::uint8_t, 16>& bytes() const noexcept { return b_; }
  int version() const noexcept { return b_[6] >> 4; }
  bool is_nil() const noexcept;
  // For v7 ids: the embedded creation time (millisecond precision).
  Timestamp timestamp() const noexcept;

  friend constexpr bool operator==(const Id&, const Id&) noexcept = default;
  friend constexpr auto operator<=>(const Id&, const Id&) noexcept = default;

 private:
  std::array<std::uint8_t, 16> b_{};
};

}  // namespace budcore::core
