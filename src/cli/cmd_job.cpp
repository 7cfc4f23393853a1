// `budcore job validate FILE`: reads a job document (JSON or YAML, "-" = stdin), validates it
// against the job model and prints the normalized job JSON.
// `budcore job submit FILE --store URI --tenant T [--idempotency-key K]`, `budcore job get ID
// --store URI --tenant T` and `budcore job list --store URI --tenant T [--status S]... [--limit N]
// [--after CURSOR] [--full]` persist and read jobs through a Store, and `budcore job transition
// ID STATUS --version N [--message M] --store URI --tenant T` moves one; their JSON is
// budcore/backend/store_json.hpp's (the C ABI prints the same).
#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "budcore/backend/store.hpp"
#include "budcore/backend/store_json.hpp"
#include "budcore/core/json.hpp"
#include "budcore/core/limits.hpp"
#include "budcore/core/yaml.hpp"
#include "budcore/job/job.hpp"
#include "budcore/job/job_status.hpp"
#include "cli/command.hpp"

namespace budcore::cli {
namespace {

// Every problem at once, each with its path (as Kubernetes' API validation does); a file that
// cannot be read or parsed is the list's one problem, so readers always find "errors".
int validate_job_file(const std::string& file) {
  auto doc = load_strict_document_arg(file, "FILE", std::min(core::max_input_bytes(), job::kMaxDocumentBytes));
  if (!doc) return report_errors({doc.error()});
  auto checked = job::Job::check_value(*doc);
  if (!checked.ok()) return report_errors(checked.errors);
  std::cout << checked.job->to_json() << "\n";
  return kExitOk;
}

// Options every --store command takes.
struct StoreArgs {
  std::string uri;
  std::string tenant;
};

void add_store_options(CLI::App* cmd, StoreArgs& args) {
  cmd->add_option("--store", args.uri, "Store URI (sqlite:///path.db, postgresql://...)")->required();
  cmd->add_option("--tenant", args.tenant, "Tenant id (UUID)")->required();
}

// A job or tenant that does not exist is the caller's input being wrong (exit 2), as is an
// invalid one or a version that moved on (a conflict); a store that cannot be opened or read is
// a failure (exit 1).
int store_error(const core::Error& e) {
  int rc = report_error(e);
  return e.code == core::ErrorCode::NotFound || e.code == core::ErrorCode::Conflict ? kExitInvalid : rc;
}

// Opens the store and parses the tenant, or reports why not.
int open_for(const StoreArgs& args, std::unique_ptr<backend::Store>& store, core::Id& tenant) {
  auto t = parse_uuid(args.tenant, "tenant");
  if (!t) return report_error(t.error());
  tenant = *t;
  auto s = backend::open_store(args.uri);
  if (!s) return report_error(s.error());
  store = std::move(*s);
  return kExitOk;
}

void print(const core::Value& v) { std::cout << core::to_json(v) << "\n"; }

int submit_job_file(const StoreArgs& args, const std::string& file, const std::string& key) {
  auto doc = load_strict_document_arg(file, "FILE", std::min(core::max_input_bytes(), job::kMaxDocumentBytes));
  if (!doc) return report_error(doc.error());
  auto job = job::Job::from_value(*doc);
  if (!job) return report_error(job.error());
  std::unique_ptr<backend::Store> store;
  core::Id tenant;
  if (int rc = open_for(args, store, tenant); rc != kExitOk) return rc;
  const std::string digest = key.empty() ? std::string() : backend::job_request_digest(*job, tenant);
  auto r = store->create_job(tenant, std::move(*job), key, digest);
  if (!r) return store_error(r.error());
  print(backend::to_value(*r));
  return kExitOk;
}

int get_job(const StoreArgs& args, const std::string& id_text) {
  auto id = parse_uuid(id_text, "id");
  if (!id) return report_error(id.error());
  std::unique_ptr<backend::Store> store;
  core::Id tenant;
  if (int rc = open_for(args, store, tenant); rc != kExitOk) return rc;
  auto r = store->get_job(tenant, *id);
  if (!r) return store_error(r.error());
  print(backend::to_value(*r));
  return kExitOk;
}

// Moves a stored job along the state machine, a compare-and-set on the version the caller read:
// a lost race or an illegal move is a conflict.
int transition_job(const StoreArgs& args, const std::string& id_text, const std::string& to, std::int64_t version,
                   const std::string& message) {
  auto id = parse_uuid(id_text, "id");
  if (!id) return report_error(id.error());
  auto status = job::parse_job_status(to);
  if (!status) return report_error(core::Error(status.error()).at("to"));
  std::unique_ptr<backend::Store> store;
  core::Id tenant;
  if (int rc = open_for(args, store, tenant); rc != kExitOk) return rc;
  auto r = store->transition_job(tenant, *id, version, *status, message);
  if (!r) return store_error(r.error());
  print(backend::to_value(*r));
  return kExitOk;
}

struct ListArgs {
  std::vector<std::string> statuses;
  int limit = 100;
  std::string after;
  bool full = false;
};

int list_jobs(const StoreArgs& args, const ListArgs& list) {
  core::List statuses;
  for (const auto& s : list.statuses) statuses.emplace_back(s);
  core::Map query{{"limit", list.limit}, {"view", list.full ? "full" : "summary"}};
  if (!statuses.empty()) query.set("status", core::Value(std::move(statuses)));
  if (!list.after.empty()) query.set("after", list.after);
  auto q = backend::parse_job_query(core::Value(std::move(query)));
  if (!q) return report_error(q.error());
  std::unique_ptr<backend::Store> store;
  core::Id tenant;
  if (int rc = open_for(args, store, tenant); rc != kExitOk) return rc;
  auto page = backend::run_job_query(*store, tenant, *q);
  if (!page) return store_error(page.error());
  print(*page);
  return kExitOk;
}

const bool registered = register_commands([](CLI::App& root) {
  auto* group = root.add_subcommand("job", "Job specs (the Job schema)");
  group->require_subcommand(1);

  auto* validate = group->add_subcommand(
      "validate", "Validate a job document (JSON or YAML) and print it normalized as JSON");
  auto file = std::make_shared<std::string>();
  validate->add_option("FILE", *file, "Job document; '-' reads standard input")->required();
  validate->callback([file] { exit_code() = validate_job_file(*file); });

  auto* submit = group->add_subcommand("submit", "Validate a job document and persist it in a store");
  auto submit_args = std::make_shared<StoreArgs>();
  auto submit_file = std::make_shared<std::string>();
  auto submit_key = std::make_shared<std::string>();
  submit->add_option("FILE", *submit_file, "Job document (JSON or YAML); '-' reads standard input")->required();
  add_store_options(submit, *submit_args);
  submit->add_option("--idempotency-key", *submit_key,
                     "A retried submit with the same key returns the first job instead of a second one");
  submit->callback([=] {
    if (auto st = check_key_option(*submit, "--idempotency-key", *submit_key); !st) {
      exit_code() = report_error(st.error());
      return;
    }
    exit_code() = submit_job_file(*submit_args, *submit_file, *submit_key);
  });

  auto* get = group->add_subcommand("get", "Print a stored job with its version");
  auto get_args = std::make_shared<StoreArgs>();
  auto get_id = std::make_shared<std::string>();
  get->add_option("ID", *get_id, "Job id (UUID)")->required();
  add_store_options(get, *get_args);
  get->callback([=] { exit_code() = get_job(*get_args, *get_id); });

  auto* transition = group->add_subcommand("transition", "Move a stored job to another status (compare-and-set on its version)");
  auto tr_args = std::make_shared<StoreArgs>();
  auto tr_id = std::make_shared<std::string>();
  auto tr_to = std::make_shared<std::string>();
  auto tr_message = std::make_shared<std::string>();
  auto tr_version = std::make_shared<std::int64_t>(0);
  transition->add_option("ID", *tr_id, "Job id (UUID)")->required();
  transition->add_option("STATUS", *tr_to, "The status to move to (queued, scheduled, running, completed, ...)")->required();
  transition->add_option("--version", *tr_version, "The version of the record you read (the move fails if it moved on)")
      ->required();
  transition->add_option("--message", *tr_message, "Why (the job's status_message)");
  add_store_options(transition, *tr_args);
  transition->callback([=] { exit_code() = transition_job(*tr_args, *tr_id, *tr_to, *tr_version, *tr_message); });

  auto* list = group->add_subcommand("list", "List a tenant's jobs, newest first, one page at a time");
  auto list_store = std::make_shared<StoreArgs>();
  auto list_args = std::make_shared<ListArgs>();
  add_store_options(list, *list_store);
  list->add_option("--status", list_args->statuses, "Only jobs in this status (repeatable)");
  list->add_option("--limit", list_args->limit, "Page size, 1 to 1000")->default_val(100);
  list->add_option("--after", list_args->after, "The next_cursor of the previous page");
  list->add_flag("--full", list_args->full, "Whole job records instead of summaries");
  list->callback([=] { exit_code() = list_jobs(*list_store, *list_args); });
});

}  // namespace
}  // namespace budcore::cli
