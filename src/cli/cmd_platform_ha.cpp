// `budcore platform serve --config FILE` runs one replica of a platform (docs/ha.md) on the
// system clock until SIGTERM or SIGINT, printing a JSON line at every change of role; on a
// signal it closes the platform, which resigns the lease so a follower leads at once.
// `budcore platform replicas --config FILE` shows the lease (holder, epoch, expiry on the
// database's clock) and every replica's last report.
#include <csignal>
#include <chrono>
#include <iostream>
#include <memory>
#include <string>
#include <thread>

#include <unistd.h>

#include "budcore/core/json.hpp"
#include "budcore/platform/platform.hpp"
#include "budcore/platform/platform_json.hpp"
#include "cli/command.hpp"

namespace budcore::cli {
namespace {

volatile std::sig_atomic_t g_stop = 0;
void on_signal(int) { g_stop = 1; }

core::Result<platform::PlatformConfig> replica_config(const std::string& file, const std::string& replica, bool lead) {
  BUDCORE_TRY_ASSIGN(auto text, read_file_arg(file, "--config"));
  BUDCORE_TRY_ASSIGN(auto config, platform::PlatformConfig::parse(text));
  if (!replica.empty()) {
    if (!config.ha) config.ha = platform::HaConfig{};
    config.ha->replica = replica;
  }
  if (!config.ha)
    return core::Error::invalid("ha", "", "a replica needs the config's `ha` section (or --replica): docs/ha.md");
  config.ha->lead = lead;
  config.clock = platform::ClockKind::System;
  BUDCORE_TRY(config.validate());
  return config;
}

void line(core::Map m) {
  m.set("at", core::Timestamp::from_unix_nanos(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                    std::chrono::system_clock::now().time_since_epoch())
                                                    .count())
                  .to_string());
  std::cout << core::to_json(core::Value(std::move(m))) << std::endl;
}

int serve(const std::string& file, const std::string& replica) {
  auto config = replica_config(file, replica, true);
  if (!config) return report_error(config.error());
  std::signal(SIGTERM, on_signal);
  std::signal(SIGINT, on_signal);
  auto p = platform::Platform::open(*config);
  if (!p) return report_error(p.error());
  const std::string id = config->ha->replica;
  line(core::Map{{"event", "started"}, {"replica", id}});
  std::string role;
  std::int64_t epoch = -1;
  while (!g_stop) {
    auto s = (*p)->ha_status();
    if (!s && s.error().code == core::ErrorCode::AlreadyExists) {  // another process runs this id now
      p->reset();
      return report_error(s.error());
    }
    if (s && (s->role != role || s->epoch != epoch)) {
      role = s->role;
      epoch = s->epoch;
      line(core::Map{{"event", "role"}, {"replica", id}, {"role", role}, {"epoch", epoch}});
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  p->reset();  // resigns the lease
  line(core::Map{{"event", "stopped"}, {"replica", id}});
  return kExitOk;
}

int replicas(const std::string& file) {
  auto config = replica_config(file, "observer", false);
  if (!config) return report_error(config.error());
  config->ha->replica = "cli-" + std::to_string(::getpid());
  auto p = platform::Platform::open(*config);
  if (!p) return report_error(p.error());
  auto s = (*p)->ha_status();
  if (!s) return report_error(s.error());
  // The observer itself reported on open: leave it out.
  std::erase_if(s->replicas, [&](const auto& r) { return r.replica == config->ha->replica; });
  std::cout << core::to_json(platform::to_value(*s)) << "\n";
  return kExitOk;
}

}  // namespace

// Called by cmd_platform.cpp's registrar, under `budcore platform`.
void add_platform_ha_commands(CLI::App& platform_group) {
  CLI::App* group = &platform_group;
  auto* s = group->add_subcommand("serve", "Run one replica of the platform until SIGTERM (docs/ha.md)");
  auto file = std::make_shared<std::string>();
  auto replica = std::make_shared<std::string>();
  s->add_option("--config", *file, "Platform config with an `ha` section")->required();
  auto* replica_opt = s->add_option("--replica", *replica, "This replica's id (overrides ha.replica)");
  s->callback([=] {
    // Given empty (an unset shell variable) it would fall back to the config's id silently.
    if (replica_opt->count() > 0 && replica->empty()) {
      exit_code() = report_error(core::Error::invalid("--replica", "", "a replica id is 1 to 63 of a-z, 0-9 and '-'"));
      return;
    }
    exit_code() = serve(*file, *replica);
  });
  auto* r = group->add_subcommand("replicas", "The lease's holder and epoch, and every replica's last report");
  auto rfile = std::make_shared<std::string>();
  r->add_option("--config", *rfile, "Platform config with an `ha` section")->required();
  r->callback([=] { exit_code() = replicas(*rfile); });
}

}  // namespace budcore::cli
