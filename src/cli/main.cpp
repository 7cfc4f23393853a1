// The budcore command: JSON on stdout, exit 0/2/1 (docs/cli.md, the stable contracts).
#include <cctype>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "budcore/c/version.h"
#include "budcore/core/json.hpp"
#include "budcore/core/keys.hpp"
#include "budcore/core/limits.hpp"
#include "budcore/core/yaml.hpp"
#include "cli/command.hpp"

namespace budcore::cli {

namespace {
std::vector<Registrar>& registry() {
  static std::vector<Registrar> r;
  return r;
}
}  // namespace

bool register_commands(Registrar registrar) {
  registry().push_back(std::move(registrar));
  return true;
}

const std::vector<Registrar>& registrars() { return registry(); }

int& exit_code() {
  static int code = kExitOk;
  return code;
}

core::Error input_file_error(core::Error e, std::string_view field) {
  if (e.code == core::ErrorCode::Io) {
    e.code = core::ErrorCode::Invalid;
    if (!field.empty()) e.field = std::string(field);
  }
  return e;
}

namespace {
template <typename T>
core::Result<T> as_input_error(core::Result<T> r, std::string_view field) {
  if (!r) return input_file_error(std::move(r).error(), field);
  return r;
}
}  // namespace

core::Result<std::string> read_file_arg(const std::string& file, std::string_view field, std::size_t max) {
  return as_input_error(core::read_input(file, max != 0 ? max : core::max_input_bytes(), field), field);
}

core::Result<core::Value> load_document_arg(const std::string& file, std::string_view field, std::size_t max) {
  return as_input_error(core::load_document_file(file, max, field), field);
}

core::Result<core::Value> load_strict_document_arg(const std::string& file, std::string_view field, std::size_t max) {
  BUDCORE_TRY_ASSIGN(auto text, read_file_arg(file, field, max));
  return core::parse_document(text, core::ParseOptions{.unique_keys = true});
}

core::Status check_key_option(const CLI::App& cmd, const std::string& option, const std::string& key) {
  if (cmd.count(option) == 0 || !key.empty()) return {};
  return core::Error::invalid(option, "", "must not be empty (leave it out for no key)");
}

core::Status write_file_arg(const std::string& file, std::string_view text, std::string_view field) {
  std::ofstream out(file, std::ios::binary);
  if (!out || !out.write(text.data(), static_cast<std::streamsize>(text.size())))
    return core::Error::make(core::ErrorCode::Io, "cannot write " + file, std::string(field));
  return {};
}

core::Value error_json(const core::Error& full, std::string code) {
  // A 48 MB offending value is quoted by its first bytes and its length.
  core::Value v = core::to_value(core::clamp_for_display(full));
  if (!code.empty()) v.mutable_map().set("code", std::move(code));
  return v;
}

core::Result<core::Id> parse_uuid(const std::string& text, const char* field) { return core::Id::parse_field(text, field); }

void print_error_json(const core::Value& doc) {
  // core::to_json writes malformed UTF-8 (a file name, say) as U+FFFD: stderr stays JSON.
  std::cerr << core::to_json(doc) << "\n";
}

namespace {
int exit_code_for(const core::Error& error) {
  // Input over a limit (size, nesting, range) is invalid input too, as is a request refused
  // until later (rate limited) and one the library does not serve (a config schema version it
  // does not read, a call the configured clock or backend cannot answer): the caller changes it.
  bool input = error.code == core::ErrorCode::Invalid || error.code == core::ErrorCode::Security ||
               error.code == core::ErrorCode::Overflow || error.code == core::ErrorCode::RateLimited ||
               error.code == core::ErrorCode::Unsupported;
  return input ? kExitInvalid : kExitInternal;
}
}  // namespace

int report_error(const core::Error& error) {
  // An input with several problems (a job document) lists them all, as job validate does.
  if (!error.others.empty()) return report_errors(error.all_problems());
  print_error_json(core::Value::map({{"error", error_json(error)}}));
  return exit_code_for(error);
}

int report_errors(const std::vector<core::Error>& errors) {
  core::List list;
  for (const auto& e : errors) list.push_back(error_json(e));
  core::Value first = list.front();
  print_error_json(core::Value::map({{"error", std::move(first)}, {"errors", core::Value(std::move(list))}}));
  // The first decides, as it would alone: the single-error reader sees the same exit code.
  return exit_code_for(errors.front());
}

core::Error usage_error(std::string_view parser_message) {
  // The parser names the option in its message ("--batch is required", "The following
  // arguments were not expected: --bacth", "--cycles: Value x not in range"): the first word
  // that looks like an option becomes the path, as a field is elsewhere.
  std::string path;
  std::size_t start = 0;
  while (start < parser_message.size()) {
    std::size_t end = parser_message.find(' ', start);
    if (end == std::string_view::npos) end = parser_message.size();
    std::string_view word = parser_message.substr(start, end - start);
    std::size_t dashes = word.rfind("--", 0) == 0 ? 2 : word.rfind('-', 0) == 0 ? 1 : 0;
    if (dashes > 0 && word.size() > dashes && std::isalpha(static_cast<unsigned char>(word[dashes]))) {
      while (!word.empty() && (word.back() == ':' || word.back() == ',' || word.back() == '.')) word.remove_suffix(1);
      path = std::string(word);
      break;
    }
    start = end + 1;
  }
  return core::Error::make(core::ErrorCode::Invalid,
                           std::string(parser_message) + " (run the command with --help for its options)", path);
}

std::optional<core::Error> unknown_command(const CLI::App& app, int argc, char** argv) {
  // The parser only says "A subcommand is required" for `budcore tempalte eval`: walk the
  // words down the command tree and name the first one that is not a command of its group.
  const CLI::App* group = &app;
  for (int i = 1; i < argc && !group->get_subcommands({}).empty(); ++i) {
    std::string_view word = argv[i];
    if (word.rfind('-', 0) == 0) {
      // An option of the group: skip its value when it takes one and is not written name=value.
      const CLI::Option* opt = group->get_option_no_throw(std::string(word.substr(0, word.find('='))));
      if (opt != nullptr && opt->get_type_size() != 0 && word.find('=') == std::string_view::npos) ++i;
      continue;
    }
    const CLI::App* next = nullptr;
    std::vector<std::string> names;
    for (const CLI::App* sub : group->get_subcommands({})) {
      if (sub->check_name(std::string(word))) next = sub;
      names.push_back(sub->get_name());
    }
    if (next != nullptr) {
      group = next;
      continue;
    }
    std::vector<std::string_view> views(names.begin(), names.end());
    std::string_view near = core::suggest(word, views);
    std::string where = group == &app ? "budcore" : "budcore " + group->get_name();
    std::string known;
    for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
    core::Error err = core::Error::make(
        core::ErrorCode::Invalid,
        "unknown command '" + std::string(word) + "' for " + where +
            (near.empty() ? "; expected one of " + known : "; did you mean '" + std::string(near) + "'?"),
        "command");
    err.value = std::string(word);
    return err;
  }
  if (group->get_subcommands({}).empty()) return std::nullopt;
  std::string known;
  for (const CLI::App* sub : group->get_subcommands({})) known += (known.empty() ? "" : ", ") + sub->get_name();
  return core::Error::make(core::ErrorCode::Invalid,
                           (group == &app ? "budcore" : "budcore " + group->get_name()) + " needs a command: one of " + known,
                           "command");
}

}  // namespace budcore::cli

int main(int argc, char** argv) {
  using namespace budcore::cli;
  CLI::App app{"budcore: the control-plane core of a GPU platform (jobs, pipelines, quotas, cost)"};
  app.set_version_flag("--version", std::string("budcore ") + BUDCORE_VERSION_STRING);
  app.require_subcommand(1);
  std::size_t max_input = 0;
  app.add_option("--max-input-bytes", max_input,
                 "Largest input document read (default 64 MiB, or BUDCORE_MAX_INPUT_BYTES)")
      ->check(CLI::PositiveNumber)
      ->each([](const std::string& v) { budcore::core::set_max_input_bytes(std::stoull(v)); });
  for (const auto& r : registrars()) r(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    if (auto unknown = unknown_command(app, argc, argv)) return report_error(*unknown);
    return report_error(usage_error(e.what()));
  } catch (const std::bad_alloc&) {
    return report_error(budcore::core::Error::make(budcore::core::ErrorCode::Internal, "out of memory"));
  } catch (const std::exception& e) {
    return report_error(budcore::core::Error::make(budcore::core::ErrorCode::Internal, e.what()));
  }
  return exit_code();
}
