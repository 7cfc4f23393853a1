// The budcore command: JSON on stdout, exit 0/2/1 (CONTRACTS.md).
#include <iostream>
#include <nlohmann/json.hpp>

#include "budcore/c/version.h"
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

int report_error(const core::Error& error) {
  nlohmann::ordered_json j;
  j["error"]["code"] = std::string(core::to_string(error.code));
  j["error"]["message"] = error.message;
  j["error"]["path"] = error.field;
  if (!error.value.empty()) j["error"]["value"] = error.value;
  std::cerr << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  return error.code == core::ErrorCode::Invalid ? kExitInvalid : kExitInternal;
}

}  // namespace budcore::cli

int main(int argc, char** argv) {
  using namespace budcore::cli;
  CLI::App app{"budcore: the control-plane core of a GPU platform (jobs, pipelines, quotas, cost)"};
  app.set_version_flag("--version", std::string("budcore ") + BUDCORE_VERSION_STRING);
  app.require_subcommand(1);
  for (const auto& r : registrars()) r(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : kExitInvalid;
  } catch (const std::exception& e) {
    return report_error(budcore::core::Error::make(budcore::core::ErrorCode::Internal, e.what()));
  }
  return exit_code();
}
