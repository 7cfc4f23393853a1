// `budcore pipeline schedule FILE... --until T`: rehearses triggers (cron, events, pipeline
// completion) over a window of virtual time with simulated executors (docs/triggers.md).
#pragma once

#include <CLI/CLI.hpp>

#pragma GCC visibility push(hidden)  // private to the library: not exported

namespace budcore::cli {

// Adds the `schedule` subcommand to the `pipeline` command group.
void add_pipeline_schedule_command(CLI::App& pipeline_group);

}  // namespace budcore::cli

#pragma GCC visibility pop
