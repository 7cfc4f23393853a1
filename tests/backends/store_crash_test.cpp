// Crash safety: a child process submits and transitions jobs on a SQLite store while the parent
// SIGKILLs it at random moments, many times. The child reports each acknowledged (committed)
// write through a pipe; after every kill the parent reopens the store and checks that every
// acknowledged write is there, no submit was duplicated, and no unit of work is half-applied.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <thread>

#include "backends/store_fixture.hpp"
#include "budcore/backend/store.hpp"
#include "budcore/job/state_machine.hpp"

namespace budcore::backend {
namespace {

using core::Id;
using job::JobStatus;

constexpr JobStatus kPath[] = {JobStatus::Queued, JobStatus::Scheduled, JobStatus::Running, JobStatus::Completed};

std::string key_of(int i) { return "submit-" + std::to_string(i); }

// One unit of work per step: the status change and its audit entry commit together.
core::Status advance(Store& store, const Id& tenant, JobRecord& rec, JobStatus to) {
  return store.transact([&](Store& tx) -> core::Status {
    BUDCORE_TRY_ASSIGN(rec, tx.transition_job(tenant, rec.job.id, rec.version, to));
    AuditEntry e;
    e.actor = "crash-test";
    e.action = "job.transition";
    e.object_type = "job";
    e.object_id = rec.job.id.to_string();
    BUDCORE_TRY(tx.append_audit(tenant, e));
    return {};
  });
}

// The child: from submit index `first` on, forever: submit (idempotently), then walk the job
// to Completed. Each committed write is acknowledged as "<index> <version>\n".
[[noreturn]] void child_main(const std::string& uri, const Id& tenant, int first, int ack_fd) {
  // synchronous=NORMAL: in WAL mode a commit survives the death of the process (what SIGKILL
  // tests); FULL adds an fsync per commit against power loss, which would only slow the child.
  StoreOptions options;
  options.durable = false;
  auto opened = open_store(uri, options);
  if (!opened) _exit(3);
  Store& store = **opened;
  auto ack = [&](int i, std::int64_t version) {
    std::string line = std::to_string(i) + " " + std::to_string(version) + "\n";
    if (::write(ack_fd, line.data(), line.size()) != static_cast<ssize_t>(line.size())) _exit(4);
  };
  for (int i = first;; ++i) {
    job::Job j;
    j.name = "job-" + std::to_string(i);
    auto created = store.create_job(tenant, j, key_of(i));
    if (!created) _exit(5);
    JobRecord rec = created->record;
    ack(i, rec.version);
    // A job a previous child left half-way continues from where it is.
    for (JobStatus to : kPath) {
      if (job::is_legal_transition(rec.job.status, to)) {
        JobRecord next = rec;
        if (!advance(store, tenant, next, to)) _exit(6);
        rec = std::move(next);
        ack(i, rec.version);
      }
    }
  }
}

TEST(StoreCrashTest, SigkillAtRandomMomentsLosesNoAcknowledgedWrite) {
  testing::TempDir dir;
  const std::string uri = "sqlite://" + (dir.path / "crash.db").string();
  const Id tenant = Id::generate();
  ASSERT_TRUE(open_store(uri));  // create the schema before the first child

  std::mt19937 rng(std::random_device{}());
  std::uniform_int_distribution<int> delay_ms(20, 160);
  std::map<int, std::int64_t> acked;  // submit index -> highest acknowledged version
  int total_acks = 0;
  // At least kRounds kills; slower builds (sanitizers, a loaded machine) acknowledge fewer writes
  // per round, so rounds continue until enough writes were at risk, up to kMaxRounds.
  constexpr int kRounds = 30;
  constexpr int kMaxRounds = 200;
  constexpr int kMinAcks = 1000;
  for (int round = 0; round < kMaxRounds && (round < kRounds || total_acks <= kMinAcks); ++round) {
    // Resume at the first submit that was not acknowledged: it may or may not have committed,
    // and the idempotency key must make the retry safe either way.
    int first = acked.empty() ? 0 : acked.rbegin()->first;
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(fds[0]);
      child_main(uri, tenant, first, fds[1]);
    }
    ::close(fds[1]);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(rng)));
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status)) << "child exited on its own with " << WEXITSTATUS(status);
    // Everything the child wrote before dying is in the pipe.
    std::string buf;
    char chunk[4096];
    ssize_t n = 0;
    while ((n = ::read(fds[0], chunk, sizeof chunk)) > 0) buf.append(chunk, static_cast<std::size_t>(n));
    ::close(fds[0]);
    std::size_t pos = 0;
    while (pos < buf.size()) {
      auto nl = buf.find('\n', pos);
      if (nl == std::string::npos) break;  // a torn last line was never fully acknowledged
      int i = 0;
      long long v = 0;
      ASSERT_EQ(std::sscanf(buf.c_str() + pos, "%d %lld", &i, &v), 2);
      acked[i] = std::max<std::int64_t>(acked[i], v);
      ++total_acks;
      pos = nl + 1;
    }

    // The store opens cleanly and holds every acknowledged write.
    auto opened = open_store(uri);
    ASSERT_TRUE(opened) << "round " << round << ": " << opened.error().describe();
    Store& store = **opened;
    // Audit entries per job, in one scan.
    std::map<std::string, std::int64_t> audits;
    PageRequest apage{1000, ""};
    for (;;) {
      auto audit = store.list_audit(tenant, {}, apage);
      ASSERT_TRUE(audit) << audit.error().describe();
      for (const auto& e : audit->items) ++audits[e.object_id];
      if (audit->next_cursor.empty()) break;
      apage.after = audit->next_cursor;
    }
    std::map<std::string, int> keys;
    std::int64_t jobs = 0;
    PageRequest page{1000, ""};
    for (;;) {
      auto list = store.list_jobs(tenant, {}, page);
      ASSERT_TRUE(list) << list.error().describe();
      for (const auto& rec : list->items) {
        ++jobs;
        ++keys[rec.idempotency_key];
        // No half-applied unit of work: one audit entry per transition, exactly.
        EXPECT_EQ(audits[rec.job.id.to_string()], rec.version - 1)
            << "job " << rec.idempotency_key << " at version " << rec.version;
        EXPECT_EQ(static_cast<std::int64_t>(rec.job.status_history.size()), rec.version - 1);
      }
      if (list->next_cursor.empty()) break;
      page.after = list->next_cursor;
    }
    for (const auto& [key, count] : keys) EXPECT_EQ(count, 1) << "duplicated submit " << key;
    for (const auto& [i, version] : acked) {
      ASSERT_EQ(keys.count(key_of(i)), 1u) << "acknowledged submit " << i << " is missing";
      if (i < first) continue;  // checked in an earlier round, and only ever moves forward
      job::Job probe;
      probe.name = "probe";
      auto again = store.create_job(tenant, probe, key_of(i));  // idempotent: returns the first
      ASSERT_TRUE(again) << again.error().describe();
      EXPECT_FALSE(again->created);
      EXPECT_GE(again->record.version, version) << "acknowledged transition of submit " << i << " lost";
    }
    EXPECT_EQ(jobs, static_cast<std::int64_t>(keys.size()));
    // At most the one in-flight submit can exist without an acknowledgement.
    EXPECT_LE(jobs, static_cast<std::int64_t>(acked.size()) + 1);
  }
  RecordProperty("acknowledged_writes", total_acks);
  EXPECT_GT(total_acks, kMinAcks) << "the child made too little progress to test anything";
}

}  // namespace
}  // namespace budcore::backend
