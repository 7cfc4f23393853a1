// 128-bit integers for exact fixed-point arithmetic (Quantity, Money). GCC and Clang provide
// __int128 on every 64-bit target budcore supports; __extension__ keeps -Wpedantic quiet.
#pragma once

namespace budcore::core {
__extension__ typedef __int128 int128;
__extension__ typedef unsigned __int128 uint128;
}  // namespace budcore::core
