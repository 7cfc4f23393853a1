// budcore::core::Id — a UUID. New ids are version 7 (RFC 9562): 48 bits of Unix milliseconds
// then random bits, so ids sort by creation time (good for B-tree indexes and keyset paging).
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <functional>
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
  // within one millisecond and across threads (RFC 9562 section 6.2 method 1: a 42-bit counter
  // in rand_a and the top of rand_b, seeded randomly each millisecond, then 32 random bits).
  // The ordering is process-wide: when a clock reports a time earlier than the last id's
  // (another clock, or a clock before 1970), the id keeps the last id's millisecond. Random
  // bits come from a std::random_device-seeded generator. Thread-safe.
  static Id generate(const Clock& clock);
  static Id generate();  // system clock
  // The same with the ordering kept per scope (a tenant): a scope's ids are increasing among
  // themselves, and the counter steps between two of them count only that scope's ids, so ids
  // tell no scope how many ids another one was given.
  static Id generate(const Clock& clock, const Id& scope);
  // "0190e6f4-5c3a-7abc-8def-0123456789ab" in any case; also accepts the 32-hex form.
  static Result<Id> parse(std::string_view text);
  // parse() of an argument or field: Invalid naming `field` and quoting `text` (the one UUID
  // reader of the CLI, the C ABI and Python, so a bad id reads the same on every surface).
  static Result<Id> parse_field(std::string_view text, std::string_view field);
  static Id from_bytes(const std::array<std::uint8_t, 16>& bytes) noexcept { Id i; i.b_ = bytes; return i; }

  std::string to_string() const;  // lower-case 8-4-4-4-12
  const std::array<std::uint8_t, 16>& bytes() const noexcept { return b_; }
  int version() const noexcept { return b_[6] >> 4; }
  bool is_nil() const noexcept;
  // For v7 ids: the embedded creation time (millisecond precision); the epoch for others.
  Timestamp timestamp() const noexcept;

  friend constexpr bool operator==(const Id&, const Id&) noexcept = default;
  friend constexpr auto operator<=>(const Id&, const Id&) noexcept = default;

 private:
  std::array<std::uint8_t, 16> b_{};
};

}  // namespace budcore::core

// Ids as keys of unordered containers.
template <>
struct std::hash<budcore::core::Id> {
  // The two halves mixed (a multiply and the murmur3 finalizer): a few cycles, where FNV-1a over
  // 16 bytes is a chain of 16 multiplies; v7 ids put time in the high half and randomness in the
  // low half, so both take part.
  std::size_t operator()(const budcore::core::Id& id) const noexcept {
    std::uint64_t lo = 0, hi = 0;
    for (int i = 0; i < 8; ++i) {
      hi = (hi << 8) | id.bytes()[static_cast<std::size_t>(i)];
      lo = (lo << 8) | id.bytes()[static_cast<std::size_t>(i + 8)];
    }
    std::uint64_t h = lo ^ (hi * 0x9E3779B97F4A7C15ull);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return static_cast<std::size_t>(h);
  }
};
