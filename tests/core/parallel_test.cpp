#include "core/parallel.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace budcore::core::parallel_test {

TEST(ForEachIndexParallelTest, CallsEveryIndexOnceOnSeveralThreads) {
  std::vector<std::atomic<int>> calls(1000);
  std::mutex mu;
  std::set<std::thread::id> threads;
  for_each_index_parallel(calls.size(), 4, [&](std::size_t i) {
    calls[i].fetch_add(1);
    std::lock_guard lock(mu);
    threads.insert(std::this_thread::get_id());
    if (i == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the others go on meanwhile
  });
  for (std::size_t i = 0; i < calls.size(); ++i) EXPECT_EQ(calls[i].load(), 1) << i;
  EXPECT_GT(threads.size(), 1u);
  EXPECT_LE(threads.size(), 4u);
}

TEST(ForEachIndexParallelTest, NoIndexesAndOneThreadRunOnTheCaller) {
  for_each_index_parallel(0, 8, [](std::size_t) { FAIL() << "called for no index"; });
  std::set<std::thread::id> threads;
  for_each_index_parallel(10, 1, [&](std::size_t) { threads.insert(std::this_thread::get_id()); });
  EXPECT_EQ(threads, std::set<std::thread::id>{std::this_thread::get_id()});
}

TEST(ForEachIndexParallelTest, TheFirstExceptionReachesTheCallerAfterEveryThreadStopped) {
  std::atomic<int> running{0};
  EXPECT_THROW(for_each_index_parallel(10'000, 4,
                                       [&](std::size_t i) {
                                         running.fetch_add(1);
                                         if (i == 5) throw std::runtime_error("index 5");
                                         running.fetch_sub(1);
                                       }),
               std::runtime_error);
  EXPECT_EQ(running.load(), 1);  // only the throwing call never finished; no thread still runs
}

}  // namespace budcore::core::parallel_test
