// `budcore store migrate URI` applies the schema migrations a store needs;
// `budcore store check URI` verifies the database (integrity, schema version, every stored
// document parses). Both print one JSON object on stdout.
#include <iostream>
#include <memory>
#include <string>

#include "budcore/backend/store.hpp"
#include "budcore/core/json.hpp"
#include "cli/command.hpp"

namespace budcore::cli {
namespace {

int migrate_store(const std::string& uri) {
  auto outcome = backend::migrate_store(uri);
  if (!outcome) return report_error(outcome.error());
  core::Map out{{"uri", uri},
                {"from_schema_version", outcome->from_schema_version},
                {"schema_version", outcome->schema_version},
                {"migrated", outcome->from_schema_version != outcome->schema_version}};
  std::cout << core::to_json(core::Value(std::move(out))) << "\n";
  return kExitOk;
}

int check_store(const std::string& uri) {
  auto report = backend::check_store(uri);
  if (!report) return report_error(report.error());
  core::List problems;
  for (const auto& p : report->problems) problems.emplace_back(p);
  core::Map out{{"uri", uri},
                {"ok", report->ok},
                {"schema_version", report->schema_version},
                {"library_schema_version", report->library_schema_version},
                {"rows_checked", report->rows_checked},
                {"problems", core::Value(std::move(problems))}};
  std::cout << core::to_json(core::Value(std::move(out))) << "\n";
  // A damaged store is bad input to this command, not a failure of budcore.
  return report->ok ? kExitOk : kExitInvalid;
}

const bool registered = register_commands([](CLI::App& root) {
  auto* group = root.add_subcommand("store", "The durable store (sqlite:///path.db, postgresql://...)");
  group->require_subcommand(1);

  auto* migrate = group->add_subcommand("migrate", "Apply forward schema migrations to a store");
  auto migrate_uri = std::make_shared<std::string>();
  migrate->add_option("URI", *migrate_uri, "Store URI")->required();
  migrate->callback([migrate_uri] { exit_code() = migrate_store(*migrate_uri); });

  auto* check = group->add_subcommand("check", "Check a store's integrity, schema version and documents");
  auto check_uri = std::make_shared<std::string>();
  check->add_option("URI", *check_uri, "Store URI")->required();
  check->callback([check_uri] { exit_code() = check_store(*check_uri); });
});

}  // namespace
}  // namespace budcore::cli
