// Racing compare-and-sets: several threads (each with its own connection, or sharing one Store)
// and several processes try the same status transition of the same jobs; exactly one wins
// each race and every loser sees Conflict. Run under TSan to check the Store's own locking.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
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

// Transactions on their own connections append events of one tenant (some of two, in either
// order; some roll back): the tenant's numbers are 1..N without a gap or a repeat, each
// transaction's events are adjacent and in the order it appended them, and every document comes
// back as written (quotes, backslashes, braces, commas and "NULL" inside a PostgreSQL array).
TEST_P(StoreRace, EventsOfRacingTransactionsAreNumberedWithoutGapsInTheirOrder) {
  constexpr int kTransactions = 30;
  const Id other = Id::generate();
  std::atomic<int> unexpected{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kRacers; ++t) {
    threads.emplace_back([&, t] {
      auto s = open_store(target_.uri);
      ASSERT_TRUE(s) << s.error().describe();
      for (int i = 0; i < kTransactions; ++i) {
        const bool rolls_back = i % 7 == 3;
        auto st = (*s)->transact([&](Store& tx) -> core::Status {
          for (int k = 0; k < 1 + i % 3; ++k) {
            EventRecord e;
            e.type = "race.event";
            e.object_id = ids_[static_cast<std::size_t>(k)];
            e.data = core::Value::map({{"tx", std::to_string(t) + "/" + std::to_string(i)},
                                       {"k", k},
                                       {"text", "NULL \"q\" \\ {a,b} \xc3\xa9"}});
            if (i % 2 == 1 && k == 0) BUDCORE_TRY(tx.append_event(other, e));
            BUDCORE_TRY(tx.append_event(tenant_, e));
          }
          if (rolls_back) return core::Error::make(ErrorCode::Conflict, "rolled back on purpose");
          return {};
        });
        if (rolls_back == static_cast<bool>(st)) {
          ++unexpected;
          ADD_FAILURE() << (st ? "a rollback committed" : st.error().describe());
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  ASSERT_EQ(unexpected.load(), 0);
  auto s = open_store(target_.uri);
  ASSERT_TRUE(s);
  auto check = [&](const Id& tenant, int per_tx_expected_total) {
    std::vector<EventRecord> all;
    for (std::int64_t after = 0;;) {
      auto page = (*s)->list_events(tenant, after, 1000);
      ASSERT_TRUE(page) << page.error().describe();
      if (page->empty()) break;
      after = page->back().seq;
      for (auto& e : *page) all.push_back(std::move(e));
    }
    ASSERT_EQ(static_cast<int>(all.size()), per_tx_expected_total);
    for (std::size_t i = 0; i < all.size(); ++i) {
      EXPECT_EQ(all[i].seq, static_cast<std::int64_t>(i + 1));
      EXPECT_EQ(all[i].data.find("text")->as_string(), "NULL \"q\" \\ {a,b} \xc3\xa9");
      const auto k = all[i].data.find("k")->as_int();
      if (k > 0) {  // follows its own transaction's previous event
        ASSERT_GT(i, 0u);
        EXPECT_EQ(all[i - 1].data.find("tx")->as_string(), all[i].data.find("tx")->as_string());
        EXPECT_EQ(all[i - 1].data.find("k")->as_int(), k - 1);
      }
    }
  };
  int mine = 0, theirs = 0;
  for (int i = 0; i < kTransactions; ++i) {
    if (i % 7 == 3) continue;
    mine += 1 + i % 3;
    theirs += i % 2;
  }
  check(tenant_, mine * kRacers);
  check(other, theirs * kRacers);
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreRace, ::testing::Values("sqlite_file", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace budcore::backend
