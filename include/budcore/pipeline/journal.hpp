// budcore::pipeline::JournalSink — crash-safe persistence of a run whose cost per transition
// does not grow with the number of steps: a snapshot line, then one JSON line per transition
// holding only the step records that changed. load_journal() rebuilds the last saved RunState
// for Engine::restore. Format, compaction and durability: docs/pipelines.md "Crash safety".
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "budcore/core/result.hpp"
#include "budcore/core/value.hpp"
#include "budcore/export.h"
#include "budcore/pipeline/run_state.hpp"

namespace budcore::pipeline {

struct JournalOptions {
  // fdatasync after every record, before the engine acts on it: the transition survives a
  // machine crash or power loss, not only a crash of the process. Off, a record reaches the
  // kernel (write(2)) before save returns, which survives the process being killed, and the
  // last records may be lost with the machine. On by default, as the Store's `durable`: the
  // engine's next act is outside the process (a job, an HTTP call), and only a durable record
  // keeps a restart from repeating it.
  bool fsync = true;
  // Compaction: when the records written since the last snapshot exceed `compact_ratio` times
  // the snapshot's size (and `compact_min_bytes`), the next save writes a new snapshot instead
  // of a record. Rewriting O(steps) bytes after O(steps) bytes of records keeps the cost per
  // transition constant on average.
  double compact_ratio = 2.0;
  std::size_t compact_min_bytes = 64 * 1024;
  // Also compact after this many records (0: by size only). A small fixed count makes the cost
  // per transition grow with the pipeline again; it exists to bound replay time.
  std::size_t compact_every_records = 0;
};

// A StateSink writing the journal file `path` (JSON Lines). Its first save, and every
// compaction, replaces the file atomically with a snapshot line (written to `path.tmp`, synced,
// renamed over `path`); later saves append one record. A sink that is handed save() instead of
// save_changes() has no list of changes and writes a snapshot each time (correct, but O(steps)).
// Not thread-safe; one sink per run. The file's directory must exist.
class BUDCORE_API JournalSink final : public StateSink {
 public:
  explicit JournalSink(std::string path, JournalOptions options = {});
  ~JournalSink() override;
  JournalSink(const JournalSink&) = delete;
  JournalSink& operator=(const JournalSink&) = delete;

  core::Status save(const Transition& transition, const RunState& state) override;
  core::Status save_changes(const Transition& transition, const RunState& state,
                            std::span<const std::size_t> changed_steps) override;

  const std::string& path() const noexcept { return path_; }
  std::int64_t snapshots_written() const noexcept { return snapshots_; }
  std::int64_t records_written() const noexcept { return records_; }  // since the last snapshot
  std::size_t bytes_written() const noexcept { return total_bytes_; }  // over the sink's life

 private:
  core::Status write_snapshot(const Transition& transition, const RunState& state);
  core::Status append(const std::string& line);
  bool compaction_due() const noexcept;

  std::string path_;
  JournalOptions options_;
  int fd_ = -1;  // the journal, open for appending; -1 before the first snapshot
  std::size_t snapshot_bytes_ = 0;
  std::size_t record_bytes_ = 0;  // since the last snapshot
  std::int64_t snapshots_ = 0;
  std::int64_t records_ = 0;
  std::size_t total_bytes_ = 0;
};

// Reads a journal into the RunState value it describes (for Engine::restore): the snapshot
// line with every complete record applied in order. An unterminated last line is a write that
// a crash cut short; by the save-before-act contract its transition was never acted on, so it
// is ignored. Anything else that is wrong (not JSON, a record out of sequence, a step index
// that does not fit) is an error naming the file and line (field "line N").
BUDCORE_API core::Result<core::Value> load_journal(const std::string& path);

}  // namespace budcore::pipeline
