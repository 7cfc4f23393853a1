// Racing compare-and-sets: several threads (each with its own connection, or sharing one Store)
// and several processes try the same status transition of the same jobs; exactly one wins
// each race and every loser sees Conflict. Run under TSan to check the Store's own locking.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "backends/store_fixture.hpp"
#include "budcore/backend/store.hpp"

namespace budcore::backend {
namespace {

using core::ErrorCode;
using core::Id;
using job::JobStatus;

constexpr int kJobs = 40;
constexpr int kRacers = 4;

class StoreRace : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    target_ = testing::make_target(GetParam());
    if (!target_.skip.empty()) GTEST_SKIP() << target_.skip;
    ASSERT_TRUE(target_.error.empty()) << target_.error;
    auto s = open_store(target_.uri);
    ASSERT_TRUE(s) << s.error().describe();
    for (int i = 0; i < kJobs; ++i) {
      job::Job j;
      j.name = "race-" + std::to_string(i);
      auto r = (*s)->create_job(tenant_, j);
      ASSERT_TRUE(r);
      ids_.push_back(r->record.job.id);
    }
  }

  // One racer: tries Pending -> Queued (version 1) on every job; returns its wins per job.
  std::vector<int> race(Store& store, std::atomic<int>& unexpected) {
    std::vector<int> wins(kJobs, 0);
    for (int i = 0; i < kJobs; ++i) {
      auto r = store.transition_job(tenant_, ids_[i], 1, JobStatus::Queued, "racer");
      if (r) {
        wins[i] = 1;
      } else if (r.error().code != ErrorCode::Conflict) {
        ++unexpected;
        ADD_FAILURE() << r.error().describe();
      }
    }
    return wins;
  }

  void expect_one_winner_each(const std::vector<std::vector<int>>& wins) {
    for (int i = 0; i < kJobs; ++i) {
      int total = 0;
      for (const auto& w : wins) total += w[i];
      EXPECT_EQ(total, 1) << "job " << i;
    }
    auto s = open_store(target_.uri);
    ASSERT_TRUE(s);
    for (const auto& id : ids_) {
      auto r = (*s)->get_job(tenant_, id);
      ASSERT_TRUE(r);
      EXPECT_EQ(r->version, 2);
      EXPECT_EQ(r->job.status_history.size(), 1u);
    }
  }

  testing::BackendTarget target_;
  const Id tenant_ = Id::generate();
  std::vector<Id> ids_;
};

TEST_P(StoreRace, ThreadsWithTheirOwnConnectionsExactlyOneWins) {
  std::vector<std::vector<int>> wins(kRacers);
  std::atomic<int> unexpected{0};
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kRacers; ++t) {
    threads.emplace_back([&, t] {
      auto s = open_store(target_.uri);
      ASSERT_TRUE(s) << s.error().describe();
      ++ready;
      while (ready.load() < kRacers) std::this_thread::yield();
      wins[t] = race(**s, unexpected);
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(unexpected.load(), 0);
  expect_one_winner_each(wins);
}

TEST_P(StoreRace, ThreadsSharingOneStoreExactlyOneWins) {
  auto shared = open_store(target_.uri);
  ASSERT_TRUE(shared);
  std::vector<std::vector<int>> wins(kRacers);
  std::atomic<int> unexpected{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kRacers; ++t) threads.emplace_back([&, t] { wins[t] = race(**shared, unexpected); });
  for (auto& th : threads) th.join();
  EXPECT_EQ(unexpected.load(), 0);
  expect_one_winner_each(wins);
}

TEST_P(StoreRace, ProcessesExactlyOneWins) {
  // Each child writes its wins as a string of 0/1 to its pipe.
  std::vector<std::vector<int>> wins;
  std::vector<std::pair<pid_t, int>> children;
  for (int p = 0; p < kRacers; ++p) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(fds[0]);
      auto s = open_store(target_.uri);
      if (!s) _exit(3);
      std::atomic<int> unexpected{0};
      auto w = race(**s, unexpected);
      std::string out;
      for (int x : w) out += static_cast<char>('0' + x);
      if (::write(fds[1], out.data(), out.size()) != static_cast<ssize_t>(out.size())) _exit(4);
      _exit(unexpected.load() == 0 ? 0 : 5);
    }
    ::close(fds[1]);
    children.emplace_back(pid, fds[0]);
  }
  for (auto [pid, fd] : children) {
    std::string buf(kJobs, '\0');
    std::size_t got = 0;
    ssize_t n = 0;
    while (got < buf.size() && (n = ::read(fd, buf.data() + got, buf.size() - got)) > 0) got += static_cast<std::size_t>(n);
    ::close(fd);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_EQ(WEXITSTATUS(status), 0) << "a racing process failed";
    ASSERT_EQ(got, buf.size());
    std::vector<int> w;
    for (char c : buf) w.push_back(c - '0');
    wins.push_back(std::move(w));
  }
  expect_one_winner_each(wins);
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreRace, ::testing::Values("sqlite_file", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace budcore::backend
