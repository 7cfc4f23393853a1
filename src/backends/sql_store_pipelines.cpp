// SqlStore: pipelines and their steps (compare-and-set on versions).
#include "backends/sql_store_impl.hpp"

namespace budcore::backends::sql {

Result<PipelineRecord> SqlStore::create_pipeline(const core::Id& tenant, PipelineRecord p) {
  BUDCORE_TRY(check_tenant(tenant));
  BUDCORE_TRY(check_key("name", p.name));
  if (p.id.is_nil()) p.id = core::Id::generate(*s_->clock);
  p.created_at = p.updated_at = s_->clock->now();
  p.version = 1;
  return write([&]() -> Result<PipelineRecord> {
    std::string tid = tenant.to_string(), id = p.id.to_string(), def = core::to_json(p.definition),
                state = core::to_json(p.state);
    std::int64_t now = p.created_at.unix_nanos();
    SqlParam params[] = {tid, id, std::string_view(p.name), def, state, now, now};
    auto rows = db().execute(
        "INSERT INTO pipelines (tenant_id, id, name, definition, state, version, created_ns, updated_ns) "
        "VALUES (?, ?, ?, ?, ?, 1, ?, ?)",
        params);
    if (!rows) return already_exists(rows.error(), "pipeline " + id + " already exists", "id");
    return std::move(p);
  });
}

Result<PipelineRecord> SqlStore::get_pipeline(const core::Id& tenant, const core::Id& id) {
  return read([&] { return load_pipeline(tenant, id); });
}

Result<Page<PipelineRecord>> SqlStore::list_pipelines(const core::Id& tenant, const PageRequest& page) {
  Query q;
  q.sql(kPipelineColumns).where("tenant_id = ?").bind(tenant.to_string());
  if (!page.after.empty()) {
    BUDCORE_TRY_ASSIGN(auto cur, parse_pair_cursor(page));
    q.where("(created_ns, id) < (?, ?)").bind(cur.first).bind(std::move(cur.second));
  }
  const std::size_t limit = page_limit(page);
  q.sql(" ORDER BY created_ns DESC, id DESC LIMIT ?").bind(static_cast<std::int64_t>(limit + 1));
  return read([&]() -> Result<Page<PipelineRecord>> {
    Page<PipelineRecord> out;
    BUDCORE_TRY(db().query(q.text(), q.params(), [&](const SqlRow& row) -> Status {
      if (out.items.size() == limit) {
        const auto& l = out.items.back();
        out.next_cursor = std::to_string(l.created_at.unix_nanos()) + "_" + l.id.to_string();
        return {};
      }
      BUDCORE_TRY_ASSIGN(auto p, pipeline_from_row(row));
      out.items.push_back(std::move(p));
      return {};
    }));
    return out;
  });
}

Result<PipelineRecord> SqlStore::save_pipeline_state(const core::Id& tenant, const core::Id& id,
                                           std::int64_t expected_version, core::Value state) {
  return write([&]() -> Result<PipelineRecord> {
    std::string tid = tenant.to_string(), sid = id.to_string(), text = core::to_json(state);
    // The record's head only: its documents are not read (a run's state is saved at every
    // transition, and its definition can be large).
    std::optional<PipelineRecord> head;
    SqlParam key[] = {tid, sid};
    BUDCORE_TRY(db().query("SELECT name, version, created_ns FROM pipelines WHERE tenant_id = ? AND id = ?", key,
                           [&](const SqlRow& row) -> Status {
                             head.emplace();
                             head->id = id;
                             head->name = row.text(0);
                             head->version = row.int64(1);
                             head->created_at = ts(row.int64(2));
                             return {};
                           }));
    if (!head) return Error::make(ErrorCode::NotFound, "pipeline " + sid + " not found", "pipeline_id");
    PipelineRecord p = std::move(*head);
    BUDCORE_TRY(check_version("pipeline " + id.to_string(), p.version, expected_version));
    p.updated_at = s_->clock->now();
    std::int64_t now = p.updated_at.unix_nanos();
    SqlParam params[] = {text, now, tid, sid, expected_version};
    BUDCORE_TRY_ASSIGN(auto rows, db().execute("UPDATE pipelines SET state = ?, version = version + 1, updated_ns = ? "
                                               "WHERE tenant_id = ? AND id = ? AND version = ?",
                                               params));
    if (rows != 1) return lost_race("pipeline " + sid);
    p.state = std::move(state);
    p.version = expected_version + 1;
    return p;
  });
}

Result<StepRecord> SqlStore::put_step(const core::Id& tenant, StepRecord step,
                            std::optional<std::int64_t> expected_version) {
  BUDCORE_TRY(check_key("step_id", step.step_id));
  return write([&]() -> Result<StepRecord> {
    std::string tid = tenant.to_string(), pid = step.pipeline_id.to_string(), state = core::to_json(step.state);
    {
      // The pipeline must exist: a look at its key (its documents are not read; a run's
      // definition can be large and its steps are written at every transition).
      SqlParam owner[] = {tid, pid};
      bool found = false;
      BUDCORE_TRY(db().query("SELECT 1 FROM pipelines WHERE tenant_id = ? AND id = ?", owner, [&](const SqlRow&) -> Status {
        found = true;
        return {};
      }));
      if (!found) return Error::make(ErrorCode::NotFound, "pipeline " + pid + " not found", "pipeline_id");
    }
    std::int64_t now = s_->clock->now().unix_nanos();
    const std::string what = "step " + step.step_id + " of pipeline " + pid;
    if (!expected_version) {
      SqlParam p[] = {tid, pid, std::string_view(step.step_id), std::string_view(step.status), state, now};
      BUDCORE_TRY(db().execute(
          "INSERT INTO pipeline_steps (tenant_id, pipeline_id, step_id, status, state, version, updated_ns) "
          "VALUES (?, ?, ?, ?, ?, 1, ?) ON CONFLICT (tenant_id, pipeline_id, step_id) DO UPDATE SET "
          "status = excluded.status, state = excluded.state, version = pipeline_steps.version + 1, "
          "updated_ns = excluded.updated_ns",
          p));
    } else if (*expected_version == 0) {
      SqlParam p[] = {tid, pid, std::string_view(step.step_id), std::string_view(step.status), state, now};
      auto rows = db().execute(
          "INSERT INTO pipeline_steps (tenant_id, pipeline_id, step_id, status, state, version, updated_ns) "
          "VALUES (?, ?, ?, ?, ?, 1, ?)",
          p);
      if (!rows) {
        if (rows.error().code == ErrorCode::AlreadyExists) return lost_race(what + " (it exists already)");
        return std::move(rows).error();
      }
    } else {
      SqlParam p[] = {std::string_view(step.status), state, now, tid, pid, std::string_view(step.step_id),
                      *expected_version};
      BUDCORE_TRY_ASSIGN(auto rows, db().execute("UPDATE pipeline_steps SET status = ?, state = ?, "
                                                 "version = version + 1, updated_ns = ? WHERE tenant_id = ? AND "
                                                 "pipeline_id = ? AND step_id = ? AND version = ?",
                                                 p));
      if (rows != 1) {
        BUDCORE_TRY(load_step(tenant, step.pipeline_id, step.step_id));  // NotFound when absent
        return lost_race(what);
      }
    }
    return load_step(tenant, step.pipeline_id, step.step_id);
  });
}

Result<StepRecord> SqlStore::get_step(const core::Id& tenant, const core::Id& pipeline_id, std::string_view step_id) {
  return read([&] { return load_step(tenant, pipeline_id, step_id); });
}

Result<std::vector<StepRecord>> SqlStore::list_steps(const core::Id& tenant, const core::Id& pipeline_id) {
  return read([&]() -> Result<std::vector<StepRecord>> {
    std::string tid = tenant.to_string(), pid = pipeline_id.to_string();
    SqlParam p[] = {tid, pid};
    std::vector<StepRecord> out;
    BUDCORE_TRY(db().query(std::string(kStepColumns) + " WHERE tenant_id = ? AND pipeline_id = ? ORDER BY step_id",
                           p, [&](const SqlRow& row) -> Status {
                             BUDCORE_TRY_ASSIGN(auto s, step_from_row(row));
                             out.push_back(std::move(s));
                             return {};
                           }));
    return out;
  });
}

}  // namespace budcore::backends::sql
