// `budcore audit verify URI` checks the audit log's hash chain over every tenant (exit 0 when
// intact, 2 with every problem listed when not); `budcore audit export URI --tenant T` writes a
// tenant's entries as JSON lines, oldest first. Operator tools: they open the store directly,
// like `budcore store check` (docs/security.md "Audit").
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "budcore/backend/store.hpp"
#include "budcore/backend/store_json.hpp"
#include "budcore/core/json.hpp"
#include "budcore/core/limits.hpp"
#include "cli/command.hpp"

namespace budcore::cli {
namespace {

int verify(const std::string& uri, const std::vector<std::string>& anchors) {
  for (const auto& a : anchors)
    if (a.size() != 64 || a.find_first_not_of("0123456789abcdef") != std::string::npos)
      return report_error(core::Error::invalid("expect-head", core::truncate_text(a, 80),
                                               "an anchor is an entry hash: 64 lower-case hex digits"));
  backend::StoreOptions o;
  o.migrate = false;  // a check changes nothing
  auto store = backend::open_store(uri, o);
  if (!store) return report_error(store.error());
  auto report = (*store)->verify_audit_chain(anchors);
  if (!report) return report_error(report.error());
  core::Value out = backend::to_value(*report);
  out.mutable_map().set("uri", uri);
  std::cout << core::to_json(out) << "\n";
  // A broken chain is the finding this command exists for: exit 2, as `store check` does.
  return report->ok ? kExitOk : kExitInvalid;
}

int export_lines(const std::string& uri, const std::string& tenant_text) {
  auto tenant = parse_uuid(tenant_text, "tenant");
  if (!tenant) return report_error(tenant.error());
  backend::StoreOptions o;
  o.migrate = false;
  auto store = backend::open_store(uri, o);
  if (!store) return report_error(store.error());
  backend::PageRequest page{backend::PageRequest::kMaxPageSize, ""};
  for (;;) {
    auto r = (*store)->list_audit(*tenant, {}, page);
    if (!r) return report_error(r.error());
    for (const auto& e : r->items) std::cout << core::to_json(backend::to_value(e)) << "\n";
    if (r->next_cursor.empty()) break;
    page.after = r->next_cursor;
  }
  return kExitOk;
}

const bool registered = register_commands([](CLI::App& root) {
  auto* group = root.add_subcommand("audit", "The hash-chained audit log of a store");
  group->require_subcommand(1);

  auto* v = group->add_subcommand("verify", "Check every tenant's audit chain: each entry's hash and link, and the heads");
  auto verify_uri = std::make_shared<std::string>();
  auto anchors = std::make_shared<std::vector<std::string>>();
  v->add_option("URI", *verify_uri, "Store URI")->required();
  v->add_option("--expect-head", *anchors,
                "An entry hash kept outside the store (a head published earlier): it must still be chained")
      ->take_all();
  v->callback([verify_uri, anchors] { exit_code() = verify(*verify_uri, *anchors); });

  auto* x = group->add_subcommand("export", "A tenant's audit entries as JSON lines, oldest first");
  auto export_uri = std::make_shared<std::string>();
  auto tenant = std::make_shared<std::string>();
  x->add_option("URI", *export_uri, "Store URI")->required();
  x->add_option("--tenant", *tenant, "Tenant id (UUID)")->required();
  x->callback([=] { exit_code() = export_lines(*export_uri, *tenant); });
});

}  // namespace
}  // namespace budcore::cli
