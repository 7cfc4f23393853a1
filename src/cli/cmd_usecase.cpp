// `budcore usecase render --template FILE --components PATH [--params FILE] [--set NAME=VALUE]...`
// (docs/cli.md contract 4): resolves a use-case template into its components and the pipeline
// that deploys them; {"valid": false, "errors": [...]} and exit 2 otherwise.
// `budcore usecase list|show|components` read the shipped templates and components (or files).
// `budcore usecase sync --store URI` loads them into a Store with the catalog's startup
// rule (new: insert; same version: skip; other version: update).
// `budcore usecase deploy TEMPLATE --tenant T [--param NAME=VALUE]... [--store URI]`, `deployment
// ID`, `deployments`, `teardown ID` deploy on the platform (Platform::deploy_usecase).
#include <array>
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "budcore/backend/store.hpp"
#include "budcore/core/json.hpp"
#include "budcore/core/yaml.hpp"
#include "budcore/platform/platform.hpp"
#include "budcore/usecase/catalog.hpp"
#include "budcore/usecase/registry.hpp"
#include "budcore/usecase/resolver.hpp"
#include "cli/command.hpp"

namespace budcore::cli {
namespace {

using core::Value;
using usecase::Issue;

void print(const Value& v) { std::cout << core::to_json(v) << "\n"; }

// Prints contract 4's error report on stdout and the first problem on stderr; exit 2.
int report_issues(const std::vector<Issue>& issues) {
  usecase::ResolveResult r;
  r.errors = issues;
  print(r.to_value());
  const Issue& first = issues.front();
  report_error(core::Error::invalid(first.path, "", first.code + ": " + first.message));
  return kExitInvalid;
}

// A document that does not load, as one issue of `code` (its field is the path).
int load_failure(const core::Error& e, std::string_view code) {
  if (e.code != core::ErrorCode::Invalid && e.code != core::ErrorCode::AlreadyExists &&
      e.code != core::ErrorCode::Unsupported && e.code != core::ErrorCode::Io) {
    return report_error(e);
  }
  return report_issues({Issue{std::string(code), e.message, e.field}});
}

// FILE, "-", or the id of a shipped template.
core::Result<usecase::UseCaseTemplate> template_arg(const std::string& arg, std::string_view field = "--template") {
  std::error_code ec;
  if (arg == "-" || std::filesystem::exists(arg, ec)) {
    auto t = usecase::load_template_file(arg);
    if (!t) return input_file_error(std::move(t).error(), field);
    return t;
  }
  if (const auto* t = usecase::builtin_template(arg)) return *t;
  return core::Error::invalid(std::string(field), arg, "is neither a file nor the id of a shipped template");
}

core::Result<usecase::ComponentRegistry> components_arg(const std::string& path) {
  if (path.empty()) return usecase::builtin_components();
  usecase::ComponentRegistry registry;
  if (auto st = usecase::load_components(path, registry); !st) return input_file_error(std::move(st).error(), "--components");
  return registry;
}

// NAME=VALUE with VALUE read as a YAML scalar ("8" -> 8, "true" -> true, "" -> null); text
// that YAML would read as a list or map stays a string.
core::Status apply_set(const std::string& text, core::Map& params) {
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) return core::Error::invalid("--set", text, "expects NAME=VALUE");
  std::string name = text.substr(0, eq), raw = text.substr(eq + 1);
  auto v = core::parse_yaml(raw);
  Value value = (!v || v->is_list() || v->is_map()) ? Value(raw) : std::move(*v);
  params.set(std::move(name), std::move(value));
  return {};
}

// --params FILE (a map) then every --set/--param NAME=VALUE over it.
core::Result<core::Map> parameters_arg(const std::string& file, const std::vector<std::string>& sets) {
  core::Map params;
  if (!file.empty()) {
    auto doc = usecase::load_usecase_document(file);
    if (!doc) return core::Error::invalid("--params", file, doc.error().message);
    if (!doc->is_null() && !doc->is_map()) {
      return core::Error::invalid("--params", file, "must hold a map of parameter name -> value");
    }
    if (doc->is_map()) params = doc->as_map();
  }
  for (const auto& s : sets) BUDCORE_TRY(apply_set(s, params));
  return params;
}

struct RenderArgs {
  std::string tmpl, components, params, overrides, name;
  std::vector<std::string> sets;
};

int render(const RenderArgs& args) {
  auto tmpl = template_arg(args.tmpl);
  if (!tmpl) return load_failure(tmpl.error(), usecase::issue_code::kInvalidTemplate);
  auto registry = components_arg(args.components);
  if (!registry) return load_failure(registry.error(), usecase::issue_code::kInvalidComponent);
  auto gathered = parameters_arg(args.params, args.sets);
  if (!gathered) return report_error(gathered.error());
  core::Map params = std::move(*gathered);
  usecase::ResolveOptions options;
  options.name = args.name;
  if (!args.overrides.empty()) {
    auto doc = usecase::load_usecase_document(args.overrides);
    if (!doc) return report_error(core::Error::invalid("--overrides", args.overrides, doc.error().message));
    options.overrides = std::move(*doc);
  }
  auto result = usecase::resolve(*tmpl, *registry, Value(std::move(params)), options);
  if (!result.valid()) return report_issues(result.errors);
  print(result.to_value());
  return kExitOk;
}

core::Result<std::vector<usecase::TemplateFile>> templates_arg(const std::string& dir) {
  if (dir.empty()) return usecase::builtin_templates();
  auto files = usecase::load_templates(dir);
  if (!files) return input_file_error(std::move(files).error(), "--templates");
  return files;
}

int list(const std::string& dir) {
  auto files = templates_arg(dir);
  if (!files) return load_failure(files.error(), usecase::issue_code::kInvalidTemplate);
  core::List out;
  for (const auto& f : *files) out.push_back(usecase::template_summary(f));
  print(Value::map({{"templates", Value(std::move(out))}}));
  return kExitOk;
}

int show(const std::string& id, const std::string& dir) {
  if (dir.empty()) {
    auto t = template_arg(id, "ID");
    if (!t) return load_failure(t.error(), usecase::issue_code::kInvalidTemplate);
    print(t->to_value());
    return kExitOk;
  }
  auto files = templates_arg(dir);
  if (!files) return load_failure(files.error(), usecase::issue_code::kInvalidTemplate);
  for (const auto& f : *files) {
    if (f.tmpl.id == id) {
      print(f.tmpl.to_value());
      return kExitOk;
    }
  }
  return report_error(core::Error::invalid("ID", id, "no template with this id in " + dir));
}

int components(const std::string& path) {
  auto registry = components_arg(path);
  if (!registry) return load_failure(registry.error(), usecase::issue_code::kInvalidComponent);
  core::List out;
  for (const auto* c : registry->all()) out.push_back(c->to_value());
  print(Value::map({{"components", Value(std::move(out))}}));
  return kExitOk;
}

int sync(const std::string& uri, const std::string& components_path, const std::string& templates_path) {
  auto registry = components_arg(components_path);
  if (!registry) return load_failure(registry.error(), usecase::issue_code::kInvalidComponent);
  auto files = templates_arg(templates_path);
  if (!files) return load_failure(files.error(), usecase::issue_code::kInvalidTemplate);
  auto store = backend::open_store(uri);
  if (!store) return report_error(store.error());
  auto report = usecase::sync_system_catalog(**store, *registry, *files);
  if (!report) return report_error(report.error());
  print(report->to_value());
  return kExitOk;
}

// ---- deployments on a platform: usecase deploy | deployment | deployments | teardown ---------

struct DeployArgs {
  std::string config;
  std::string dir = ".budcore";
  std::string store;
  std::string tenant;
  std::string principal;
  std::string tmpl, components, params;
  std::vector<std::string> sets;
  std::string id;
  double run_for = -1;  // < 0: do not move the clock
};

// The platform of --config FILE, else the embedded one in --dir (its store --store URI when given).
core::Result<std::unique_ptr<platform::Platform>> open_platform(const DeployArgs& a) {
  platform::PlatformConfig config;
  if (!a.config.empty()) {
    BUDCORE_TRY_ASSIGN(auto doc, usecase::load_usecase_document(a.config));
    BUDCORE_TRY_ASSIGN(config, platform::PlatformConfig::from_value(doc));
  } else {
    std::error_code ec;
    std::filesystem::create_directories(a.dir, ec);
    config = platform::PlatformConfig::embedded(a.dir);
  }
  if (!a.store.empty()) config.store_uri = a.store;
  return platform::Platform::open(std::move(config));
}

// Unknown ids and conflicts are the caller's input (exit 2), as in `budcore platform`.
int deploy_failure(const core::Error& e) {
  int rc = report_error(e);
  return e.code == core::ErrorCode::NotFound || e.code == core::ErrorCode::Conflict ? kExitInvalid : rc;
}

using DeployFn = std::function<core::Result<Value>(platform::Platform&, const platform::CallContext&)>;

int with_deployments(const DeployArgs& a, const DeployFn& fn) {
  auto tenant = parse_uuid(a.tenant, "tenant");
  if (!tenant) return report_error(tenant.error());
  auto ctx = platform::CallContext::for_tenant(*tenant, a.principal);
  auto p = open_platform(a);
  if (!p) {
    int rc = report_error(p.error());
    return p.error().code == core::ErrorCode::Invalid ? kExitInvalid : rc;
  }
  if (a.run_for > 366.0 * 86400) return report_error(core::Error::invalid("run-for", std::to_string(a.run_for), "at most a year"));
  auto out = fn(**p, ctx);
  if (!out) return deploy_failure(out.error());
  if (a.run_for >= 0) {
    // Move the virtual clock so the deployment comes up (or down), then read it again.
    auto st = (*p)->run_until((*p)->now() + core::Duration::nanoseconds(static_cast<std::int64_t>(a.run_for * 1e9)));
    if (!st) return deploy_failure(st.error());
    const Value* id = out->is_map() ? out->find("id") : nullptr;
    if (id != nullptr && id->is_string()) {
      auto again = (*p)->get_deployment(ctx, core::Id::parse(id->as_string()).value());
      if (!again) return deploy_failure(again.error());
      out = again->to_value();
    }
  }
  print(*out);
  return kExitOk;
}

core::Result<Value> deploy(platform::Platform& p, const platform::CallContext& ctx, const DeployArgs& a) {
  BUDCORE_TRY_ASSIGN(auto params, parameters_arg(a.params, a.sets));
  std::error_code ec;
  core::Result<usecase::DeploymentRecord> d = core::Error::make(core::ErrorCode::Internal, "not deployed");
  if (a.tmpl == "-" || std::filesystem::exists(a.tmpl, ec)) {
    BUDCORE_TRY_ASSIGN(auto tmpl, usecase::load_template_file(a.tmpl));
    BUDCORE_TRY_ASSIGN(auto registry, components_arg(a.components));
    d = p.deploy_usecase(ctx, tmpl, Value(std::move(params)), registry);
  } else {
    if (!a.components.empty())
      return core::Error::invalid("--components", a.components, "only applies to a template given as a file");
    d = p.deploy_usecase(ctx, a.tmpl, Value(std::move(params)));
  }
  if (!d) return d.error();
  return d->to_value();
}

core::Result<core::Id> deployment_id(const std::string& text) {
  return parse_uuid(text, "id");
}

void add_deploy_commands(CLI::App& group) {
  auto add_common = [](CLI::App* cmd, DeployArgs& a) {
    cmd->add_option("--config", a.config, "Platform config file (YAML/JSON)");
    cmd->add_option("--dir", a.dir, "Embedded platform directory (default .budcore)");
    cmd->add_option("--store", a.store, "Store URI (sqlite:///path.db, postgresql://...) instead of the platform's");
    cmd->add_option("--tenant", a.tenant, "Tenant id (UUID)")->required();
    cmd->add_option("--principal", a.principal, "Who calls (recorded with events)");
    cmd->add_option("--run-for", a.run_for, "Then move the virtual clock this many seconds and print the record again");
  };

  auto da = std::make_shared<DeployArgs>();
  auto* d = group.add_subcommand("deploy", "Deploy a template on the platform: a deployment record and its pipeline run");
  d->add_option("TEMPLATE", da->tmpl, "A template id (the tenant's catalog, else shipped; ID@VERSION) or a file")
      ->required();
  d->add_option("--param,--set", da->sets, "NAME=VALUE, the value read as a YAML scalar; wins over --params");
  d->add_option("--params", da->params, "Parameters: a YAML/JSON file holding a map");
  d->add_option("--components", da->components, "Components for a template file (default: the shipped ones)");
  add_common(d, *da);
  d->callback([da] {
    exit_code() = with_deployments(*da, [da](platform::Platform& p, const platform::CallContext& ctx) {
      return deploy(p, ctx, *da);
    });
  });

  auto ga = std::make_shared<DeployArgs>();
  auto* g = group.add_subcommand("deployment", "A deployment record with its jobs' statuses now");
  g->add_option("ID", ga->id, "Deployment id")->required();
  add_common(g, *ga);
  g->callback([ga] {
    exit_code() = with_deployments(*ga, [ga](platform::Platform& p, const platform::CallContext& ctx) -> core::Result<Value> {
      BUDCORE_TRY_ASSIGN(auto id, deployment_id(ga->id));
      BUDCORE_TRY_ASSIGN(auto r, p.get_deployment(ctx, id));
      return r.to_value();
    });
  });

  auto la = std::make_shared<DeployArgs>();
  auto* l = group.add_subcommand("deployments", "The tenant's deployments, oldest first");
  add_common(l, *la);
  l->callback([la] {
    exit_code() = with_deployments(*la, [](platform::Platform& p, const platform::CallContext& ctx) -> core::Result<Value> {
      BUDCORE_TRY_ASSIGN(auto list, p.list_deployments(ctx));
      core::List items;
      for (const auto& r : list) items.push_back(r.to_value());
      return Value(std::move(items));
    });
  });

  auto ta = std::make_shared<DeployArgs>();
  auto* t = group.add_subcommand("teardown", "Cancel a deployment's jobs, dependents first (again: no-op)");
  t->add_option("ID", ta->id, "Deployment id")->required();
  add_common(t, *ta);
  t->callback([ta] {
    exit_code() = with_deployments(*ta, [ta](platform::Platform& p, const platform::CallContext& ctx) -> core::Result<Value> {
      BUDCORE_TRY_ASSIGN(auto id, deployment_id(ta->id));
      BUDCORE_TRY_ASSIGN(auto r, p.teardown_deployment(ctx, id));
      return r.to_value();
    });
  });
}

const bool registered = register_commands([](CLI::App& root) {
  auto* group = root.add_subcommand("usecase", "Use-case templates: RAG, chatbot and agent stacks from components");
  group->require_subcommand(1);

  auto* r = group->add_subcommand("render", "Resolve a template with parameters into components and a pipeline");
  auto args = std::make_shared<RenderArgs>();
  r->add_option("--template", args->tmpl, "Template file (YAML/JSON, '-' = stdin) or a shipped template's id")
      ->required();
  r->add_option("--components", args->components,
                "Component registry: a directory of component files, or one file (default: the shipped components)");
  r->add_option("--params", args->params, "Parameters: a YAML/JSON file holding a map");
  r->add_option("--set", args->sets, "NAME=VALUE, the value read as a YAML scalar; wins over --params");
  r->add_option("--overrides", args->overrides,
                "User overrides per instance: {instance: {config, env, resources, model_id, gpu_type, gpu_count}}");
  r->add_option("--name", args->name, "The deployment's name (usecase.name in templates; default: the template id)");
  r->callback([args] { exit_code() = render(*args); });

  auto* l = group->add_subcommand("list", "List the shipped templates (or those under --templates DIR)");
  auto dir = std::make_shared<std::string>();
  l->add_option("--templates", *dir, "A directory (or file) of template files");
  l->callback([dir] { exit_code() = list(*dir); });

  auto* s = group->add_subcommand("show", "Print a template (a shipped one's id, a file, or an id under --templates)");
  auto id = std::make_shared<std::string>();
  auto sdir = std::make_shared<std::string>();
  s->add_option("ID", *id, "Template id or file")->required();
  s->add_option("--templates", *sdir, "A directory (or file) of template files");
  s->callback([id, sdir] { exit_code() = show(*id, *sdir); });

  auto* c = group->add_subcommand("components", "List the shipped components (or those under --components PATH)");
  auto cpath = std::make_shared<std::string>();
  c->add_option("--components", *cpath, "A directory of component files, or one file");
  c->callback([cpath] { exit_code() = components(*cpath); });

  auto* y = group->add_subcommand("sync", "Load the system components and templates into a Store (insert/skip/update)");
  auto sargs = std::make_shared<std::array<std::string, 3>>();
  y->add_option("--store", (*sargs)[0], "Store URI (sqlite:///path.db, postgresql://...)")->required();
  y->add_option("--components", (*sargs)[1], "Component files (default: the shipped components)");
  y->add_option("--templates", (*sargs)[2], "Template files (default: the shipped templates)");
  y->callback([sargs] { exit_code() = sync((*sargs)[0], (*sargs)[1], (*sargs)[2]); });

  add_deploy_commands(*group);
});

}  // namespace
}  // namespace budcore::cli
