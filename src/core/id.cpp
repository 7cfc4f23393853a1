// Id: UUID text form and RFC 9562 version 7 generation.
#include "budcore/core/id.hpp"

#include <algorithm>
#include <mutex>
#include <memory>
#include <random>
#include <unordered_map>

#include <unistd.h>

#include "budcore/core/clock.hpp"

namespace budcore::core {
namespace {

constexpr std::uint64_t kCounterBits = 42;
constexpr std::uint64_t kCounterLimit = std::uint64_t{1} << kCounterBits;
// A fresh counter starts with its top bit clear, leaving at least 2^41 increments per
// millisecond before it could roll over (RFC 9562 6.2, "counter rollover guards").
constexpr std::uint64_t kCounterSeedMask = (kCounterLimit >> 1) - 1;
constexpr std::uint64_t kMaxUnixMillis = (std::uint64_t{1} << 48) - 1;

// Process-wide v7 state: the last millisecond used and the counter within it.
class V7Generator {
 public:
  V7Generator() { reseed(); }

  std::array<std::uint8_t, 16> next(std::int64_t unix_nanos) {
    const std::uint64_t now_ms =
        unix_nanos <= 0 ? 0 : std::min(static_cast<std::uint64_t>(unix_nanos / 1'000'000), kMaxUnixMillis);
    std::uint64_t ms = 0;
    std::uint64_t counter = 0;
    std::uint64_t tail = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      // A forked child inherits the generator's state: without a new seed it would repeat the
      // parent's ids (and every sibling's).
      if (::getpid() != pid_) reseed();
      if (!started_ || now_ms > last_ms_) {
        started_ = true;
        last_ms_ = now_ms;
        counter_ = rng_() & kCounterSeedMask;
      } else if (++counter_ == kCounterLimit) {
        // Practically unreachable; borrow the next millisecond rather than repeat a value.
        if (last_ms_ < kMaxUnixMillis) ++last_ms_;
        counter_ = rng_() & kCounterSeedMask;
      }
      ms = last_ms_;
      counter = counter_;
      tail = rng_() & 0xFFFF'FFFFu;
    }
    // Layout: unix_ts_ms(48) | ver(4)=7 | rand_a(12)=counter[41:30] | var(2)=0b10 |
    //         rand_b(62) = counter[29:0] then 32 random bits.
    const std::uint64_t rand_a = counter >> 30;
    const std::uint64_t rand_b = ((counter & ((std::uint64_t{1} << 30) - 1)) << 32) | tail;
    std::array<std::uint8_t, 16> b{};
    for (int i = 0; i < 6; ++i) b[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(ms >> (40 - 8 * i));
    b[6] = static_cast<std::uint8_t>(0x70 | (rand_a >> 8));
    b[7] = static_cast<std::uint8_t>(rand_a);
    b[8] = static_cast<std::uint8_t>(0x80 | ((rand_b >> 56) & 0x3F));
    for (int i = 9; i < 16; ++i) b[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(rand_b >> (8 * (15 - i)));
    return b;
  }

 private:
  void reseed() {
    std::random_device device;
    std::seed_seq seed{device(), device(), device(), device(), device(), device(), device(), device()};
    rng_.seed(seed);
    pid_ = ::getpid();
    started_ = false;
  }

  std::mutex mu_;
  pid_t pid_ = 0;
  std::mt19937_64 rng_;
  bool started_ = false;
  std::uint64_t last_ms_ = 0;
  std::uint64_t counter_ = 0;
};

V7Generator& generator() {
  static V7Generator g;
  return g;
}

// One counter per scope: ids of one scope (a tenant) are ordered among themselves, and the
// counter's steps count only that scope's ids, so no scope learns how many another made.
V7Generator& generator_for(const Id& scope) {
  static std::mutex mu;
  static std::unordered_map<Id, std::unique_ptr<V7Generator>> scopes;
  std::lock_guard lock(mu);
  auto& g = scopes[scope];
  if (!g) g = std::make_unique<V7Generator>();
  return *g;
}

int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Error invalid_id(std::string_view text, std::string why) {
  return Error::invalid({}, std::string(text), "invalid UUID: " + std::move(why));
}

}  // namespace

Id Id::generate(const Clock& clock) { return from_bytes(generator().next(clock.now().unix_nanos())); }

Id Id::generate() { return generate(*system_clock()); }

Id Id::generate(const Clock& clock, const Id& scope) { return from_bytes(generator_for(scope).next(clock.now().unix_nanos())); }

Result<Id> Id::parse_field(std::string_view text, std::string_view field) {
  auto id = parse(text);
  if (!id) return Error::invalid(std::string(field), std::string(text), id.error().message);
  return id;
}

Result<Id> Id::parse(std::string_view text) {
  const bool dashed = text.size() == 36;
  if (!dashed && text.size() != 32) {
    return invalid_id(text, "expected 36 characters (8-4-4-4-12 hex digits with dashes) or 32 hex digits, got " +
                                std::to_string(text.size()));
  }
  std::array<std::uint8_t, 16> bytes{};
  std::size_t nibble = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (dashed && (i == 8 || i == 13 || i == 18 || i == 23)) {
      if (c != '-') return invalid_id(text, "expected '-' at position " + std::to_string(i));
      continue;
    }
    const int v = hex_value(c);
    if (v < 0) {
      return invalid_id(text, "character '" + std::string(1, c) + "' at position " + std::to_string(i) +
                                  " is not a hex digit");
    }
    bytes[nibble / 2] = static_cast<std::uint8_t>(bytes[nibble / 2] | (v << (nibble % 2 == 0 ? 4 : 0)));
    ++nibble;
  }
  return from_bytes(bytes);
}

std::string Id::to_string() const {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(36);
  for (std::size_t i = 0; i < b_.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += kHex[b_[i] >> 4];
    out += kHex[b_[i] & 0x0F];
  }
  return out;
}

bool Id::is_nil() const noexcept {
  for (std::uint8_t byte : b_) {
    if (byte != 0) return false;
  }
  return true;
}

Timestamp Id::timestamp() const noexcept {
  if (version() != 7) return Timestamp{};
  std::int64_t ms = 0;
  for (int i = 0; i < 6; ++i) ms = (ms << 8) | b_[static_cast<std::size_t>(i)];
  return Timestamp{} + Duration::milliseconds(ms);
}

}  // namespace budcore::core
