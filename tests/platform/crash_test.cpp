// Crash safety of the Platform: a forked child submits jobs (idempotency keys), starts and
// drives pipeline runs and moves the virtual clock, while the parent SIGKILLs it at random
// moments — hundreds of times — and starts it again. After the last kill the work is finished
// and checked: no acknowledged job lost, none duplicated, every job's transitions form one legal
// unbroken chain (so none was admitted twice), quota usage equal to the sum of admitted jobs at
// every reopen (Platform::check_invariants in each child), and the pipeline runs completed.
//
// BUDCORE_CRASH_KILLS scales the number of kills (default 200 on SQLite, 120 on PostgreSQL).
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>

#include "budcore/core/json.hpp"
#include "budcore/job/state_machine.hpp"
#include "platform/platform_fixture.hpp"

namespace budcore::testing {
namespace {

using job::JobStatus;

constexpr int kJobs = 90;

// Sequential and parallel JOB steps, short enough to finish inside the test.
core::Value crash_pipeline(const std::string& name) {
  auto step = [](std::string id, std::vector<std::string> deps, std::int64_t seconds) {
    core::List d;
    for (auto& x : deps) d.emplace_back(x);
    return core::Value::map({{"id", id},
                             {"name", id},
                             {"step_type", "JOB"},
                             {"depends_on", core::Value(std::move(d))},
                             {"config", core::Value::map({{"job_type", "BATCH"},
                                                          {"deployment_type", "DOCKER"},
                                                          {"gpu_type", "nvidia-t4"},
                                                          {"gpu_count", 1},
                                                          {"estimated_duration_seconds", seconds}})}});
  };
  return core::Value::map(
      {{"pipeline", core::Value::map({{"id", name}, {"name", name}, {"trigger_type", "manual"}})},
       {"steps", core::Value::list({step("prepare", {}, 40), step("left", {"prepare"}, 70), step("right", {"prepare"}, 50),
                                    step("merge", {"left", "right"}, 30)})}});
}

job::Job crash_job(int i) {
  auto j = gpu_job("crash-" + std::to_string(i), 1 + i % 4, 30 + (i * 37) % 200);
  if (i % 7 == 3) {
    j.priority = job::JobPriority::High;
  } else if (i % 5 == 1) {
    j.priority = job::JobPriority::Low;
    j.preemptible = true;
  }
  if (i % 6 == 2) set_sim(j, core::Value::map({{"fail_attempts", 1}, {"fail_after_seconds", 15}}));
  return j;
}

void write_line(int fd, const std::string& s) {
  std::string line = s + "\n";
  (void)!::write(fd, line.data(), line.size());
}

// The child: reopen, check the invariants, submit the jobs not yet acknowledged, drive time.
[[noreturn]] void child_main(const platform::PlatformConfig& config, int first_key, int fd) {
  auto p = platform::Platform::open(config);
  if (!p) {
    write_line(fd, "ERROR open: " + p.error().describe());
    ::_exit(4);
  }
  if (auto st = (*p)->check_invariants(); !st) {
    write_line(fd, "BROKEN " + st.error().describe());
    ::_exit(3);
  }
  write_line(fd, "opened");
  for (int i = first_key; i < kJobs; ++i) {
    auto r = (*p)->submit(ctx_a(), crash_job(i), "crash-key-" + std::to_string(i));
    if (!r) {
      write_line(fd, "ERROR submit: " + r.error().describe());
      ::_exit(4);
    }
    write_line(fd, "ack " + std::to_string(i));
    if (i % 3 == 2) (void)(*p)->run_until((*p)->now() + core::Duration::seconds(25));
  }
  auto idle = (*p)->run_until_idle();
  if (!idle) {
    write_line(fd, "ERROR run: " + idle.error().describe());
    ::_exit(4);
  }
  if (auto st = (*p)->check_invariants(); !st) {
    write_line(fd, "BROKEN " + st.error().describe());
    ::_exit(3);
  }
  write_line(fd, "done");
  ::_exit(0);
}

int kills_for(const std::string& backend) {
  if (const char* env = std::getenv("BUDCORE_CRASH_KILLS")) return std::max(1, std::atoi(env));
  return backend == "postgres" ? 120 : 200;
}

void run_crash_loop(const std::string& backend) {
  PlatformTarget t(backend);
  BUDCORE_SKIP_UNLESS_READY(t);
  std::vector<core::Id> pipeline_runs;
  {
    auto p = t.open();
    ASSERT_TRUE(p);
    for (const char* name : {"crash-pipe-a", "crash-pipe-b"}) {
      auto run = p->run_pipeline(ctx_a(), crash_pipeline(name));
      ASSERT_TRUE(run) << run.error().describe();
      pipeline_runs.push_back(run->id);
    }
  }
  const int kills = kills_for(backend);
  std::mt19937 rng(12345);
  std::uniform_int_distribution<int> delay_us(0, 25'000);
  int acked = 0, completed_children = 0, killed_after_open = 0;
  std::set<int> acked_keys;
  for (int k = 0; k < kills; ++k) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(fds[0]);
      child_main(t.config, acked, fds[1]);
    }
    ::close(fds[1]);
    // Most kills land while the reopened platform works (after it says "opened"); one in six
    // lands anywhere, reopening included.
    std::string out;
    char buf[4096];
    ssize_t n;
    if (k % 6 != 0) {
      auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
      while (out.find("opened") == std::string::npos && std::chrono::steady_clock::now() < deadline) {
        pollfd pfd{fds[0], POLLIN, 0};
        if (::poll(&pfd, 1, 50) > 0) {
          n = ::read(fds[0], buf, sizeof buf);
          if (n <= 0) break;
          out.append(buf, static_cast<std::size_t>(n));
        }
      }
    }
    std::this_thread::sleep_for(std::chrono::microseconds(delay_us(rng)));
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    while ((n = ::read(fds[0], buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
    ::close(fds[0]);
    std::size_t pos = 0;
    while (pos < out.size()) {
      std::size_t nl = out.find('\n', pos);
      if (nl == std::string::npos) break;  // a line the kill cut short
      std::string line = out.substr(pos, nl - pos);
      pos = nl + 1;
      ASSERT_TRUE(line.rfind("BROKEN", 0) != 0) << "kill " << k << ": " << line;
      ASSERT_TRUE(line.rfind("ERROR", 0) != 0) << "kill " << k << ": " << line;
      if (line.rfind("ack ", 0) == 0) {
        int i = std::stoi(line.substr(4));
        acked_keys.insert(i);
        acked = std::max(acked, i + 1);
      }
      if (line == "done") ++completed_children;
      if (line == "opened") ++killed_after_open;
    }
  }
  const int acked_under_kills = acked;
  // The last run is not killed: it finishes the work.
  {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    pid_t pid = ::fork();
    if (pid == 0) {
      ::close(fds[0]);
      child_main(t.config, acked, fds[1]);
    }
    ::close(fds[1]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    std::string out;
    char buf[4096];
    ssize_t n;
    while ((n = ::read(fds[0], buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
    ::close(fds[0]);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << out;
    ASSERT_NE(out.find("done"), std::string::npos) << out;
    for (std::size_t pos = 0; (pos = out.find("ack ", pos)) != std::string::npos; pos += 4)
      acked_keys.insert(std::stoi(out.substr(pos + 4)));
  }

  auto p = t.open();
  ASSERT_TRUE(p);
  EXPECT_TRUE(p->check_invariants()) << p->check_invariants().error().describe();
  // Every job, by idempotency key: acknowledged ones all there, none twice, all completed.
  std::map<std::string, int> by_key;
  std::vector<core::Id> ids;
  backend::PageRequest page;
  page.limit = 1000;
  do {
    auto list = p->list_jobs(ctx_a(), {}, page);
    ASSERT_TRUE(list);
    for (const auto& s : list->items) {
      ++by_key[s.idempotency_key];
      ids.push_back(s.id);
      EXPECT_EQ(s.status, JobStatus::Completed) << s.name << " " << s.idempotency_key;
    }
    page.after = list->next_cursor;
  } while (!page.after.empty());
  for (int i : acked_keys) EXPECT_EQ(by_key["crash-key-" + std::to_string(i)], 1) << "acknowledged job " << i;
  for (const auto& [key, count] : by_key) EXPECT_EQ(count, 1) << "key " << key << " created " << count << " jobs";
  EXPECT_EQ(static_cast<int>(acked_keys.size()), kJobs);
  // Each job's transitions in the event log: one unbroken chain of legal moves, exactly the
  // job's recorded history (so no transition was lost or applied twice across the kills).
  std::map<core::Id, std::vector<std::pair<std::string, std::string>>> chains;
  std::map<std::string, int> moves;
  std::int64_t since = 0;
  for (;;) {
    auto events = p->watch(ctx_a(), since, 10'000);
    ASSERT_TRUE(events);
    if (events->events.empty()) break;
    for (const auto& e : events->events) {
      if (e.type != "job.transition") continue;
      std::string from = e.data.find("from")->as_string(), to = e.data.find("to")->as_string();
      chains[e.object_id].emplace_back(from, to);
      ++moves[from + "->" + to];
    }
    since = events->last_seq;
  }
  for (const core::Id& id : ids) {
    const auto& chain = chains[id];
    ASSERT_FALSE(chain.empty());
    EXPECT_EQ(chain.front().first, "pending");
    for (std::size_t i = 0; i < chain.size(); ++i) {
      auto from = job::parse_job_status(chain[i].first), to = job::parse_job_status(chain[i].second);
      ASSERT_TRUE(from && to);
      EXPECT_TRUE(job::is_legal_transition(*from, *to)) << chain[i].first << " -> " << chain[i].second;
      if (i > 0) EXPECT_EQ(chain[i - 1].second, chain[i].first) << "job " << id.to_string() << " transition " << i;
    }
    auto job = p->get_job(ctx_a(), id);
    ASSERT_TRUE(job);
    ASSERT_EQ(job->job.status_history.size(), chain.size());
    for (std::size_t i = 0; i < chain.size(); ++i)
      EXPECT_EQ(std::string(job::to_string(job->job.status_history[i].to)), chain[i].second);
  }
  for (const core::Id& run : pipeline_runs) {
    auto r = p->get_pipeline_run(ctx_a(), run);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, pipeline::PipelineStatus::Completed) << core::to_json(r->state);
    backend::JobFilter f;
    f.pipeline_id = run;
    EXPECT_EQ(p->list_jobs(ctx_a(), f)->items.size(), 4u);  // one job per JOB step, none twice
  }
  std::string summary;
  for (const auto& [m, c] : moves) summary += m + "=" + std::to_string(c) + " ";
  std::printf("[%s] %d kills (%d after the platform had reopened); %d of %d jobs acknowledged under kills, %d children finished before their kill; "
              "transitions: %s\n",
              backend.c_str(), kills, killed_after_open, acked_under_kills, kJobs, completed_children, summary.c_str());
  EXPECT_GT(moves["running->failed"], 0);
  EXPECT_GT(moves["failed->queued"], 0);
}

TEST(PlatformCrashTest, SurvivesKillNineOnSqlite) { run_crash_loop("sqlite_file"); }
TEST(PlatformCrashTest, SurvivesKillNineOnPostgres) { run_crash_loop("postgres"); }

}  // namespace
}  // namespace budcore::testing
