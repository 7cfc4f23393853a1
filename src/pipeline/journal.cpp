// JournalSink and load_journal: a run's state as a snapshot line plus one line per transition
// with only the changed step records, so persisting a transition costs O(changes), not O(steps).
#include "budcore/pipeline/journal.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "budcore/core/json.hpp"

namespace budcore::pipeline {
namespace {

using core::Value;

constexpr int kJournalFormat = 1;

core::Error io_error(const std::string& what, const std::string& path) {
  core::Error e = core::Error::make(core::ErrorCode::Io, what + " '" + path + "': " + std::strerror(errno));
  e.value = path;
  return e;
}

// write(2) until all of `data` is written (it may write less, or be interrupted).
bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

bool sync_fd(int fd) {
  while (::fdatasync(fd) != 0) {
    if (errno != EINTR) return false;
  }
  return true;
}

// The rename of a new snapshot is durable only once its directory entry is.
bool sync_directory_of(const std::string& path) {
  auto slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = ::fsync(fd) == 0;
  ::close(fd);
  return ok;
}

std::string quoted(const std::string& s) { return core::to_json(Value(s)); }

// ---- reading -------------------------------------------------------------------------------

core::Error line_error(const std::string& path, std::size_t line, const std::string& why, std::string_view text = {}) {
  core::Error e = core::Error::invalid("line " + std::to_string(line), std::string(text.substr(0, 120)),
                                       "journal '" + path + "' line " + std::to_string(line) + ": " + why);
  return e;
}

const Value& member(const Value& v, std::string_view key) {
  static const Value kNull;
  const Value* m = v.is_map() ? v.find(key) : nullptr;
  return m ? *m : kNull;
}

// Applies one record to `state`; an error says which part of it does not fit.
core::Status apply_record(const Value& record, RunState& state) {
  const Value& run = member(record, "run");
  if (!run.is_map()) return core::Error::invalid("run", "", "a record needs the run's fields");
  std::int64_t before = state.seq;
  auto fields = state.read_fields(run);
  if (!fields) return std::move(fields).error().at("run");
  if (state.seq != before + 1) {
    return core::Error::invalid("run.seq", std::to_string(state.seq),
                                "out of sequence: the previous line left seq " + std::to_string(before) +
                                    " (a record is missing or repeated)");
  }
  const Value& steps = member(record, "steps");
  if (!steps.is_list()) return core::Error::invalid("steps", "", "must be a list");
  for (std::size_t k = 0; k < steps.as_list().size(); ++k) {
    const Value& entry = steps.as_list()[k];
    std::string at = "steps[" + std::to_string(k) + "]";
    const Value& index_v = member(entry, "index");
    if (!index_v.is_int() || index_v.as_int() < 0) return core::Error::invalid(at + ".index", "", "must be a step index");
    auto index = static_cast<std::size_t>(index_v.as_int());
    auto step = StepRun::from_value(member(entry, "step"));
    if (!step) return std::move(step).error().at(at + ".step");
    if (index < state.steps.size()) {
      if (state.steps[index].id != step->id) {
        return core::Error::invalid(at + ".step.id", step->id, "step " + std::to_string(index) + " is '" + state.steps[index].id + "'");
      }
      state.steps[index] = std::move(*step);
    } else if (index == state.steps.size()) {
      state.steps.push_back(std::move(*step));  // a new LOOP iteration
    } else {
      return core::Error::invalid(at + ".index", std::to_string(index),
                                  "beyond the " + std::to_string(state.steps.size()) + " steps known so far");
    }
  }
  const Value& memo = member(record, "memo");
  if (!memo.is_null() && !memo.is_map()) return core::Error::invalid("memo", "", "must be a map");
  if (memo.is_map()) {
    for (const auto& [id, entry] : memo.as_map()) state.memo[id] = RunState::Memo::from_value(entry);
  }
  return {};
}

}  // namespace

// ---- JournalSink ---------------------------------------------------------------------------

JournalSink::JournalSink(std::string path, JournalOptions options) : path_(std::move(path)), options_(options) {}

JournalSink::~JournalSink() {
  if (fd_ >= 0) ::close(fd_);
}

bool JournalSink::compaction_due() const noexcept {
  if (records_ == 0) return false;
  if (options_.compact_every_records > 0 && static_cast<std::size_t>(records_) >= options_.compact_every_records) return true;
  return record_bytes_ >= options_.compact_min_bytes &&
         static_cast<double>(record_bytes_) > options_.compact_ratio * static_cast<double>(snapshot_bytes_);
}

core::Status JournalSink::write_snapshot(const Transition& transition, const RunState& state) {
  std::string line = R"({"kind":"snapshot","journal":)" + std::to_string(kJournalFormat) +
                     R"(,"transition":)" + core::to_json(transition.to_value()) + R"(,"state":)" + state.to_json() + "}\n";
  // A snapshot replaces the journal atomically: the old file stays whole until the rename, and
  // the new one is synced first so a power loss never leaves the name on a partial file.
  std::string tmp = path_ + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return io_error("cannot create journal snapshot", tmp);
  if (!write_all(fd, line) || !sync_fd(fd)) {
    core::Error e = io_error("cannot write journal snapshot", tmp);
    ::close(fd);
    ::unlink(tmp.c_str());
    return e;
  }
  if (::rename(tmp.c_str(), path_.c_str()) != 0) {
    core::Error e = io_error("cannot rename journal snapshot onto", path_);
    ::close(fd);
    ::unlink(tmp.c_str());
    return e;
  }
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;  // the same file, now named path_: records are appended to it
  if (options_.fsync && !sync_directory_of(path_)) return io_error("cannot sync the directory of", path_);
  snapshot_bytes_ = line.size();
  record_bytes_ = 0;
  records_ = 0;
  ++snapshots_;
  total_bytes_ += line.size();
  return {};
}

core::Status JournalSink::append(const std::string& line) {
  if (!write_all(fd_, line) || (options_.fsync && !sync_fd(fd_))) {
    core::Error e = io_error("cannot append to journal", path_);
    // The file may now end in a partial line; never append after it. The next save (after a
    // restore) starts over with a snapshot.
    ::close(fd_);
    fd_ = -1;
    return e;
  }
  record_bytes_ += line.size();
  total_bytes_ += line.size();
  ++records_;
  return {};
}

core::Status JournalSink::save(const Transition& transition, const RunState& state) {
  return write_snapshot(transition, state);  // no list of changes: only a whole state is safe
}

core::Status JournalSink::save_changes(const Transition& transition, const RunState& state,
                                       std::span<const std::size_t> changed_steps) {
  if (fd_ < 0 || compaction_due()) return write_snapshot(transition, state);
  std::string line = R"({"kind":"record","transition":)" + core::to_json(transition.to_value()) + R"(,"run":)" +
                     core::to_json(state.fields_to_value()) + R"(,"steps":[)";
  std::string memo;
  for (std::size_t k = 0; k < changed_steps.size(); ++k) {
    std::size_t i = changed_steps[k];
    if (i >= state.steps.size()) {
      return core::Error::make(core::ErrorCode::Internal, "changed step index " + std::to_string(i) + " is beyond the " +
                                                               std::to_string(state.steps.size()) + " steps of the run");
    }
    const StepRun& s = state.steps[i];
    if (k) line += ',';
    line += R"({"index":)" + std::to_string(i) + R"(,"step":)" + core::to_json(s.to_value()) + '}';
    // The memo holds each step's last success; it changes only with its step's record.
    if (auto it = state.memo.find(s.id); it != state.memo.end()) {
      if (!memo.empty()) memo += ',';
      memo += quoted(s.id) + ':' + core::to_json(it->second.to_value());
    }
  }
  line += R"(],"memo":{)" + memo + "}}\n";
  return append(line);
}

// ---- load_journal --------------------------------------------------------------------------

core::Result<Value> load_journal(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return io_error("cannot open journal", path);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  RunState state;
  std::size_t line_no = 0;
  bool have_snapshot = false;
  for (std::size_t pos = 0; pos < text.size();) {
    ++line_no;
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) break;  // torn tail: the crash cut this write short
    std::string_view line(text.data() + pos, end - pos);
    pos = end + 1;
    auto parsed = core::parse_json(line);
    if (!parsed) return line_error(path, line_no, "not valid JSON (" + parsed.error().message + ")", line);
    const Value& kind = member(*parsed, "kind");
    if (!have_snapshot) {
      if (!kind.is_string() || kind.as_string() != "snapshot") return line_error(path, line_no, "the first line must be a snapshot", line);
      const Value& format = member(*parsed, "journal");
      if (!format.is_int() || format.as_int() != kJournalFormat) {
        return line_error(path, line_no, "unsupported journal format (expected " + std::to_string(kJournalFormat) + ")", line);
      }
      auto st = RunState::from_value(member(*parsed, "state"));
      if (!st) return line_error(path, line_no, "bad snapshot: " + st.error().describe(), line);
      state = std::move(*st);
      have_snapshot = true;
      continue;
    }
    if (!kind.is_string() || kind.as_string() != "record") return line_error(path, line_no, "expected a record", line);
    auto applied = apply_record(*parsed, state);
    if (!applied) return line_error(path, line_no, "bad record: " + applied.error().describe(), line);
  }
  if (!have_snapshot) {
    return core::Error::invalid("line 1", "", "journal '" + path + "' holds no complete snapshot line");
  }
  return state.to_value();
}

}  // namespace budcore::pipeline
