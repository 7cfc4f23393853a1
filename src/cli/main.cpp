// The budcore command: JSON on stdout, exit 0/2/1 (CONTRACTS.md).
#include <iostream>
#include <nlohmann/json.hpp>

#include "budcore/c/version.h"
#include "budcore/core/limits.hpp"
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

core::Result<std::string> read_file_arg(const std::string& file, std::size_t max) {
  auto text = core::read_input(file, max != 0 ? max : core::max_input_bytes());
  if (!text && text.error().code == core::ErrorCode::Io) {
    core::Error e = std::move(text).error();
    e.code = core::ErrorCode::Invalid;
    if (e.field.empty()) e.field = e.value;
    return e;
  }
  return text;
}

int report_error(const core::Error& full) {
  // A 48 MB offending value is quoted by its first bytes and its length.
  core::Error error = core::clamp_for_display(full);
  nlohmann::ordered_json j;
  j["error"]["code"] = std::string(core::to_string(error.code));
  j["error"]["message"] = error.message;
  j["error"]["path"] = error.field;
  if (!error.value.empty()) j["error"]["value"] = error.value;
  std::cerr << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  // Input over a limit (size, nesting, range) is invalid input too.
  bool input = error.code == core::ErrorCode::Invalid || error.code == core::ErrorCode::Security ||
               error.code == core::ErrorCode::Overflow;
  return input ? kExitInvalid : kExitInternal;
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
    int rc = app.exit(e);
    return rc == 0 ? 0 : kExitInvalid;
  } catch (const std::bad_alloc&) {
    return report_error(budcore::core::Error::make(budcore::core::ErrorCode::Internal, "out of memory"));
  } catch (const std::exception& e) {
    return report_error(budcore::core::Error::make(budcore::core::ErrorCode::Internal, e.what()));
  }
  return exit_code();
}
