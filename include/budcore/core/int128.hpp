// 128-bit integers for exact fixed-point arithmetic (Quantity, Money). GCC and Clang provide
// __int128 on every 64-bit target budcore supports; __extension__ keeps -Wpedantic quiet.
#pragma once

#include <string>

namespace budcore::core {
__extension__ typedef __int128 int128;
__extension__ typedef unsigned __int128 uint128;

inline constexpr int128 kInt128Max = static_cast<int128>(~static_cast<uint128>(0) >> 1);
inline constexpr int128 kInt128Min = -kInt128Max - 1;

// Overflow-checked arithmetic: false (and *out untouched) when the exact result does not fit.
// (Named try_* so they are not hidden by the checked_* members of Quantity and Money.)
inline bool try_add(int128 a, int128 b, int128* out) noexcept {
  int128 r;
  if (__builtin_add_overflow(a, b, &r)) return false;
  *out = r;
  return true;
}
inline bool try_sub(int128 a, int128 b, int128* out) noexcept {
  int128 r;
  if (__builtin_sub_overflow(a, b, &r)) return false;
  *out = r;
  return true;
}
inline bool try_mul(int128 a, int128 b, int128* out) noexcept {
  int128 r;
  if (__builtin_mul_overflow(a, b, &r)) return false;
  *out = r;
  return true;
}

// Decimal text of a 128-bit value ("-170141183460469231731687303715884105728" at the extreme).
inline std::string to_decimal_string(uint128 v) {
  char buf[40];
  char* p = buf + sizeof buf;
  do {
    *--p = static_cast<char>('0' + static_cast<int>(v % 10));
    v /= 10;
  } while (v != 0);
  return std::string(p, buf + sizeof buf);
}
inline std::string to_decimal_string(int128 v) {
  // Negate in unsigned arithmetic so kInt128Min does not overflow.
  if (v >= 0) return to_decimal_string(static_cast<uint128>(v));
  return "-" + to_decimal_string(static_cast<uint128>(0) - static_cast<uint128>(v));
}

}  // namespace budcore::core
