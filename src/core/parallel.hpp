#pragma once
// Runs fn(i) for every i in [0, n) on up to `threads` threads, each taking the next index when
// it is free: for I/O-bound work of uneven duration (a request each), where fixed chunks would
// leave threads idle behind a slow one. The calling thread is one of them. The first exception
// thrown is rethrown once every thread has stopped; the remaining indexes are then skipped.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace budcore::core {

template <class Fn>
void for_each_index_parallel(std::size_t n, unsigned threads, Fn&& fn) {
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr first_error;
  std::mutex error_mu;
  auto work = [&] {
    for (std::size_t i = next.fetch_add(1); i < n && !failed.load(); i = next.fetch_add(1)) {
      try {
        fn(i);
      } catch (...) {
        std::lock_guard lock(error_mu);
        if (!first_error) first_error = std::current_exception();
        failed.store(true);
      }
    }
  };
  const std::size_t extra = std::min<std::size_t>(n, std::max(1u, threads)) - (n > 0 ? 1 : 0);
  std::vector<std::thread> pool;
  pool.reserve(extra);
  try {
    for (std::size_t t = 0; t < extra; ++t) pool.emplace_back(work);
  } catch (...) {  // no thread to spare: the ones started and this one do the work
  }
  work();
  for (auto& t : pool) t.join();
  if (first_error) std::rethrow_exception(first_error);
}

}  // namespace budcore::core
