//! Security from Rust: RBAC with a bootstrap admin, refusals as `ErrorCode::Security` naming
//! the principal, a rate-limited submit with `retry_after_ms`, bindings, and the audit log.

use budcore::{Caller, ErrorCode, Platform};

const TENANT: &str = "00000000-0000-4000-8000-0000000000e7";
const JOB: &str = r#"{"name": "rust-sec", "job_type": "BATCH", "deployment_type": "DOCKER", "gpu_count": 0,
  "estimated_duration_seconds": 600}"#;

#[test]
fn roles_limits_and_the_audit_log() {
    let dir = std::env::temp_dir().join(format!("budcore-rust-security-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let config = format!(
        "store: 'sqlite://{}/p.db'\nsecurity:\n  rbac: true\n  platform_admins: ['user:root']\n  tenants:\n    '*': {{submits_per_second: 1, submit_burst: 1}}\n",
        dir.display()
    );
    let p = Platform::open(&config).unwrap();
    let root = Caller { tenant: TENANT, principal: "user:root", request_id: "r-root" };
    let erin = Caller { tenant: TENANT, principal: "user:erin", request_id: "r-erin" };

    let denied = p.submit(&erin, JOB, None).unwrap_err();
    assert_eq!(denied.code, ErrorCode::Security);
    assert_eq!((denied.field.as_str(), denied.value.as_str()), ("principal", "user:erin"));

    let bound = p.bind_role(&root, r#"{"principal": "user:erin", "role": "editor"}"#).unwrap();
    assert!(bound.contains("\"created_by\":\"user:root\""));
    assert!(p.role_bindings(&root, Some("user:erin")).unwrap().contains("\"editor\""));
    assert_eq!(p.role_bindings(&erin, None).unwrap_err().code, ErrorCode::Security);

    p.submit(&erin, JOB, None).unwrap();
    let limited = p.submit(&erin, JOB, None).unwrap_err();
    assert_eq!(limited.code, ErrorCode::RateLimited);
    assert_eq!(limited.retry_after_ms, 1000);

    let log = p.audit(&root, r#"{"actor": "user:erin"}"#).unwrap();
    assert!(log.contains("\"outcome\":\"denied\"") && log.contains("\"outcome\":\"ok\""));
    assert!(p.audit_verify(&root).unwrap().contains("\"ok\":true"));
    assert_eq!(p.audit_verify(&erin).unwrap_err().code, ErrorCode::Security);

    p.unbind_role(&root, r#"{"principal": "user:erin", "role": "editor"}"#).unwrap();
    assert_eq!(p.unbind_role(&root, r#"{"principal": "user:erin", "role": "editor"}"#).unwrap_err().code, ErrorCode::NotFound);
    drop(p);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A PostgreSQL store of its own: a fresh schema on the server `make rust-tests` starts
/// (tests/backends/pg_fixture.sh; BUDCORE_PG_STATE_DIR names it). None outside make.
fn postgres_store(name: &str) -> Option<String> {
    let state = std::env::var("BUDCORE_PG_STATE_DIR").ok()?;
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/backends/pg_fixture.sh");
    let schema = format!("{}_{}", name, std::process::id());
    let out = std::process::Command::new("bash").args([script, "schema", &state, &schema]).output().unwrap();
    assert!(out.status.success(), "pg_fixture.sh schema: {}", String::from_utf8_lossy(&out.stderr));
    Some(String::from_utf8(out.stdout).unwrap().trim().to_string())
}

fn id_in(record: &str) -> String {
    let at = record.find("\"id\":\"").unwrap() + 6;
    record[at..at + 36].to_string()
}

/// The cross-tenant matrix (docs/security.md): tenant A owns a job (SQL metacharacters in its
/// spec and key), a pipeline run and a deployment; every call by tenant B on their ids fails as
/// on an id that exists nowhere; B's lists, events, audit and deployments name nothing of A's;
/// A's keys make B jobs of its own; a document claiming A's tenant is refused; A's job is intact.
fn tenant_b_sees_nothing_of_tenant_a(p: &Platform) {
    let a = Caller { tenant: TENANT, principal: "user:a", request_id: "req x'); DROP TABLE audit_log; --" };
    let b = Caller { tenant: "00000000-0000-4000-8000-0000000000e8", principal: "user:b", request_id: "" };
    let evil_key = "k'; DELETE FROM jobs; --";
    let evil_job = r#"{"name": "a-train", "job_type": "BATCH", "deployment_type": "DOCKER", "gpu_count": 0,
      "estimated_duration_seconds": 3600, "spec": {"note": "x'); DROP TABLE jobs; --", "x' OR '1'='1": "a key too"}}"#;
    let job_id = id_in(&p.submit(&a, evil_job, Some(evil_key)).unwrap());
    p.submit(&a, JOB, Some("shared")).unwrap();
    let run_id = id_in(&p.run_pipeline(&a, r#"{"pipeline": {"id": "p", "name": "a-pipe"}, "steps": [{"id": "s", "name": "s",
      "step_type": "WAIT", "depends_on": [], "config": {"duration_seconds": 3600}}]}"#, None).unwrap());
    let dep_id = id_in(&p.deploy_usecase(&a, "simple-chatbot-v1",
        Some(r#"{"model_id": "meta-llama/Llama-3.1-8B-Instruct", "gpu_type": "nvidia-a100-80gb"}"#)).unwrap());
    p.run(Some(60.0)).unwrap();
    let before = p.get(&a, &job_id).unwrap();
    let unknown = "00000000-0000-4000-8000-00000000dead";
    type Probe<'a> = &'a dyn Fn(&str) -> Result<String, budcore::Error>;
    let probes: [(Probe, &str); 9] = [
        (&|i| p.get(&b, i), &job_id),
        (&|i| p.cancel(&b, i, ""), &job_id),
        (&|i| p.retry(&b, i), &job_id),
        (&|i| p.set_priority(&b, i, "critical"), &job_id),
        (&|i| p.preempt(&b, i, ""), &job_id),
        (&|i| p.pipeline_run(&b, i), &run_id),
        (&|i| p.cancel_pipeline_run(&b, i, ""), &run_id),
        (&|i| p.deployment(&b, i), &dep_id),
        (&|i| p.teardown_deployment(&b, i), &dep_id),
    ];
    for (probe, id) in probes {
        let on_a = probe(id).unwrap_err();
        let on_none = probe(unknown).unwrap_err();
        assert_eq!((on_a.code, on_none.code), (ErrorCode::NotFound, ErrorCode::NotFound));
        let said = on_a.message.replace(id, "<id>");
        assert_eq!(said, on_none.message.replace(unknown, "<id>"));
        assert!(!said.contains("a-"), "{said}");
    }
    for key in ["shared", evil_key] {
        let replay = p.submit(&b, JOB, Some(key)).unwrap();
        assert!(replay.contains("\"created\":true") && !replay.contains(&job_id) && !replay.contains(TENANT));
    }
    let cluster_b = p.cluster_view(&b).unwrap();
    assert!(cluster_b.contains("[hidden "), "{cluster_b}");
    assert!(p.cluster().unwrap().contains(&job_id) && p.cluster_view(&a).unwrap().contains(&job_id));
    let seen = p.list(&b, "").unwrap() + &p.events(&b, 0, 1000).unwrap() + &p.audit(&b, "").unwrap()
        + &p.deployments(&b).unwrap() + &cluster_b;
    for of_a in [job_id.as_str(), &run_id, &dep_id, "a-train", "a-pipe", TENANT, "DROP TABLE"] {
        assert!(!seen.contains(of_a), "tenant B sees {of_a}");
    }
    let forged = JOB.replacen('{', &format!("{{\"tenant_id\": \"{TENANT}\", "), 1);
    let refused = p.submit(&b, &forged, None).unwrap_err();
    assert_eq!((refused.code, refused.field.as_str()), (ErrorCode::Invalid, "tenant_id"));
    assert_eq!(p.get(&a, &job_id).unwrap(), before);
    assert!(p.pipeline_run(&a, &run_id).unwrap().contains("\"status\":\"running\""));
    assert!(p.audit(&a, r#"{"limit": 1}"#).unwrap().contains("DROP TABLE audit_log"));
}

#[test]
fn tenant_isolation_on_sqlite() {
    let dir = std::env::temp_dir().join(format!("budcore-rust-isolation-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let p = Platform::open_embedded(dir.to_str().unwrap()).unwrap();
    tenant_b_sees_nothing_of_tenant_a(&p);
    drop(p);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn tenant_isolation_on_postgres() {
    let Some(uri) = postgres_store("rust_iso") else {
        eprintln!("tenant_isolation_on_postgres: no BUDCORE_PG_STATE_DIR (make rust-tests starts a server)");
        return;
    };
    let p = Platform::open(&format!("store: '{uri}'\n")).unwrap();
    tenant_b_sees_nothing_of_tenant_a(&p);
}

// ---- The tenant boundary, class by class (docs/security.md), generated from tables ----------
// Tenant B is a legitimate user of its own tenant. For every way an identifier enters (a
// document's id, each field only the platform writes, an idempotency key, a secret name) B tries
// tenant A's identifiers and a fresh one: each is refused with the expected code and field, and
// the refusal for A's identifier is the fresh one's once the identifier itself is replaced. A's
// objects are untouched; B's event and audit numbers are 1, 2, ... with a chain of its own.

const TENANT_B: &str = "00000000-0000-4000-8000-0000000000e8";
const FRESH: &str = "00000000-0000-4000-8000-00000000f00d";
const FIELDS: &str = r#""name": "b-claims", "job_type": "BATCH", "deployment_type": "DOCKER", "gpu_count": 0,
  "estimated_duration_seconds": 600"#;
const TRAIN: &str = r#"{"pipeline": {"id": "p", "name": "a-train-pipe"}, "steps": [
  {"id": "wait", "name": "wait", "step_type": "WAIT", "depends_on": [], "config": {"duration_seconds": 600}},
  {"id": "train", "name": "train", "step_type": "JOB", "depends_on": ["wait"], "config": {"job_type": "BATCH",
   "deployment_type": "DOCKER", "gpu_type": "nvidia-a100-80gb", "gpu_count": 1, "estimated_duration_seconds": 600,
   "sim": {"outputs": {"model_url": "s3://a/model"}}}}]}"#;

/// Every way an identifier enters a submitted document (`<job>`: a job's fields, `@`: the
/// identifier) and the field its refusal names. A document without `source` has it read from
/// its pipeline_id or usecase_deployment_id, and a step without its pipeline fails the
/// document's own checks, so the bare spellings name `source` or `pipeline_id`.
const WAYS: &[(&str, &str)] = &[
    (r#"{<job>, "id": "@"}"#, "id"),
    (r#"{"jobs": [{<job>, "id": "@"}, {<job>}]}"#, "jobs[0].id"),
    (r#"{"jobs": [{<job>}, {<job>}, {"job": {<job>, "id": "@"}, "idempotency_key": "k"}]}"#, "jobs[2].id"),
    (r#"[{<job>}, {<job>, "id": "@"}]"#, "jobs[1].id"),
    (r#"{<job>, "source": "direct", "pipeline_id": "@"}"#, "pipeline_id"),
    (r#"{<job>, "source": "direct", "pipeline_id": "@", "pipeline_step_id": "@"}"#, "pipeline_id"),
    (r#"{<job>, "source": "direct", "usecase_deployment_id": "@"}"#, "usecase_deployment_id"),
    (r#"{<job>, "source": "pipeline", "pipeline_id": "@"}"#, "source"),
    (r#"{<job>, "source": "pipeline", "pipeline_id": "@", "pipeline_step_id": "@", "source_id": "@"}"#, "source"),
    (r#"{<job>, "source": "usecase", "usecase_deployment_id": "@", "source_id": "@"}"#, "source"),
    (r#"{<job>, "source_id": "@"}"#, "source_id"),
    (r#"{<job>, "pipeline_id": "@"}"#, "source"),
    (r#"{<job>, "usecase_deployment_id": "@"}"#, "source"),
    (r#"{<job>, "pipeline_step_id": "@"}"#, "pipeline_id"),
    (r#"{<job>, "outputs": {"model_url": "s3://@"}}"#, "outputs"),
    (r#"{<job>, "actual_cost": "12.50"}"#, "actual_cost"),
    (r#"{"jobs": [{<job>}, {<job>, "source": "direct", "pipeline_id": "@"}]}"#, "jobs[1].pipeline_id"),
];

/// Every spelling of the key A's pipeline step will use (`@`: A's run id), and A's own key.
const KEYS: &[&str] = &[
    "@/train/1",
    "budcore:pipeline/@/train/1",
    "budcore:@/train/1",
    "budcore:pipeline/@/train/2",
    "BUDCORE:pipeline/@/train/1",
    " budcore:pipeline/@/train/1",
    "Budcore:pipeline/@/train/1",
    "budcore:",
    "budcore:pipeline/",
    "a-key",
];

/// What a refused call says (code, field, value, message), `blind` replaced by <id>.
fn refusal(r: Result<String, budcore::Error>, blind: &str) -> (ErrorCode, String, String, String) {
    let e = r.expect_err("refused");
    (e.code, e.field.replace(blind, "<id>"), e.value.replace(blind, "<id>"), e.message.replace(blind, "<id>"))
}

fn tenant_hex(tenant: &str) -> String {
    tenant.replace('-', "").to_uppercase()
}

/// Every way B could name A's secret `api-token` (env) or `db-pass` (file).
fn secret_spellings() -> Vec<String> {
    let hex = tenant_hex(TENANT);
    let mut out: Vec<String> = ["api-token", "API_TOKEN", "api_token", "db-pass", TENANT, "..", ".", "BUDCORE_SECRET_API_TOKEN"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    out.push(hex.clone());
    out.push(format!("BUDCORE_SECRET_{hex}_API_TOKEN"));
    out.push(format!("BUDCORE_SECRET_{hex}_api-token"));
    for form in [TENANT.to_string(), TENANT.replace('-', ""), hex.clone(), TENANT.to_uppercase()] {
        for sep in ["_", "-", "."] {
            for name in ["api-token", "API_TOKEN", "api.token", "api_token", "db-pass"] {
                out.push(format!("{form}{sep}{name}"));
            }
        }
    }
    out
}

/// A tenant's audit page: seq 1, 2, ... (how many), the first prev_hash 64 zeros, each
/// prev_hash the hash before it.
fn audit_chain(page: &str) -> usize {
    let mut hash = "0".repeat(64);
    let mut n = 0;
    for item in page.split("{\"seq\":").skip(1) {
        n += 1;
        assert!(item.starts_with(&format!("{n},")), "audit seq {n}: {item}");
        let prev = &item[item.find("\"prev_hash\":\"").unwrap() + 13..][..64];
        assert_eq!(prev, hash, "entry {n} does not link to the one before it");
        hash = item[item.find("\"hash\":\"").unwrap() + 8..][..64].to_string();
    }
    n
}

fn a_holds(p: &Platform, a: &Caller, job: &str, run: &str, dep: &str) -> String {
    [p.get(a, job), p.list(a, ""), p.pipeline_run(a, run), p.deployment(a, dep)].map(Result::unwrap).join("\n")
}

/// A platform on `store` with A's secrets: an env variable and a file of A's namespace, and the
/// platform's own variables (`shared-hook` shared, `API_TOKEN` not).
fn with_secrets(store: &str, files: &std::path::Path) -> Platform {
    std::fs::create_dir_all(files.join(TENANT)).unwrap();
    std::fs::write(files.join(TENANT).join("db-pass"), "a-file-secret-2f9c41").unwrap();
    std::env::set_var(format!("BUDCORE_SECRET_{}_API_TOKEN", tenant_hex(TENANT)), "a-env-secret-77b1e0");
    std::env::set_var("BUDCORE_SECRET_API_TOKEN", "platform-secret-5d0a93");
    std::env::set_var("BUDCORE_SECRET_SHARED_HOOK", "platform-secret-5d0a93");
    Platform::open(&format!(
        "store: '{store}'\nsecurity:\n  secrets: [env, {{file: '{}'}}]\n  shared_secrets: [shared-hook]\n",
        files.display()
    ))
    .unwrap()
}

fn no_identifier_of_b_reaches_tenant_a(p: &Platform, files: &std::path::Path) {
    let a = Caller { tenant: TENANT, principal: "user:a", request_id: "r-a" };
    let b = Caller { tenant: TENANT_B, principal: "user:b", request_id: "r-b" };
    let job = |fields: &str| fields.replace("<job>", FIELDS);
    let running = r#"{"name": "a-running", "job_type": "BATCH", "deployment_type": "DOCKER", "gpu_count": 0,
      "estimated_duration_seconds": 7200}"#;
    let job_id = id_in(&p.submit(&a, running, Some("a-key")).unwrap());
    let run_id = id_in(&p.run_pipeline(&a, TRAIN, None).unwrap());
    let dep_id = id_in(&p.deploy_usecase(&a, "simple-chatbot-v1",
        Some(r#"{"model_id": "meta-llama/Llama-3.1-8B-Instruct", "gpu_type": "nvidia-a100-80gb"}"#)).unwrap());
    p.run(Some(30.0)).unwrap();
    p.submit(&a, &job(r#"{<job>, "spec": {"env": {"T": "secret://api-token", "P": "secret://db-pass"}}}"#), None).unwrap();
    let before = a_holds(p, &a, &job_id, &run_id, &dep_id);
    assert!(before.contains("\"status\":\"running\""));
    let a_ids = [job_id.as_str(), &run_id, &dep_id];
    let mut b_writes = 0;

    // Class 1 and 2: every way in, with each of A's ids and a fresh one; A may not either.
    for (way, field) in WAYS {
        let doc = |ident: &str| job(way).replace('@', ident);
        let fresh = refusal(p.submit(&b, &doc(FRESH), None), FRESH);
        assert_eq!((fresh.0, fresh.1.as_str()), (ErrorCode::Invalid, *field), "{way}: {fresh:?}");
        if *field == "id" {
            assert_eq!(fresh.3, "is assigned by the platform: submit without an id (an idempotency key makes a submit safe to repeat)");
        }
        assert_eq!(refusal(p.submit(&a, &doc(FRESH), None), FRESH), fresh, "{way} by A");
        for ident in a_ids {
            assert_eq!(refusal(p.submit(&b, &doc(ident), None), ident), fresh, "{way} with A's {ident}");
        }
    }

    // Idempotency keys: the platform's namespace is refused alike for A's run and a fresh one
    // (and for A); any other key is B's own, in B's tenant.
    for key in KEYS {
        let (with_a, with_fresh) = (key.replace('@', &run_id), key.replace('@', FRESH));
        if key.starts_with("budcore:") {
            let fresh = refusal(p.submit(&b, &job("{<job>}"), Some(&with_fresh)), FRESH);
            assert_eq!((fresh.0, fresh.1.as_str(), fresh.2.as_str()),
                       (ErrorCode::Invalid, "idempotency_key", key.replace('@', "<id>").as_str()));
            assert_eq!(refusal(p.submit(&b, &job("{<job>}"), Some(&with_a)), &run_id), fresh, "{key}");
            assert_eq!(refusal(p.submit(&a, &job("{<job>}"), Some(&with_a)), &run_id), fresh, "{key} by A");
            continue;
        }
        let mut keys = vec![with_a, with_fresh];
        keys.dedup(); // "a-key" holds no id: once
        for k in keys {
            let made = p.submit(&b, &job("{<job>}"), Some(&k)).unwrap();
            assert!(made.contains("\"created\":true") && made.contains(TENANT_B) && !made.contains(TENANT), "{made}");
            let id = id_in(&made[made.find("\"job\":").unwrap()..]);
            assert!(!a_ids.contains(&id.as_str()), "{k}");
            b_writes += 1;
        }
    }

    // Class 3: every spelling of A's secret names is B's not-found, the one any name gets; the
    // shared name falls back to the platform's.
    let uses = |who: &Caller, r: &str| p.submit(who, &job(&format!(r#"{{<job>, "spec": {{"env": {{"TOKEN": "secret://{r}"}}}}}}"#)), None);
    uses(&b, "shared-hook").unwrap();
    b_writes += 1;
    let unknown = refusal(uses(&b, "no-such-secret"), "secret://no-such-secret");
    assert_eq!((unknown.0, unknown.1.as_str()), (ErrorCode::NotFound, "spec.env.TOKEN"));
    let spellings = secret_spellings();
    assert_eq!(spellings.len(), 71);
    for r in &spellings {
        let said = refusal(uses(&b, r), &format!("secret://{r}"));
        assert_eq!(said, unknown, "secret://{r}");
        assert!(!said.3.contains("BUDCORE_SECRET") && !said.3.contains(files.to_str().unwrap()), "{said:?}");
    }

    // A holds what it held, byte for byte; its step takes the platform's key in A's tenant.
    assert_eq!(a_holds(p, &a, &job_id, &run_id, &dep_id), before);
    p.run(Some(3.0 * 3600.0)).unwrap();
    let done = p.pipeline_run(&a, &run_id).unwrap();
    assert!(done.contains("\"status\":\"completed\"") && done.contains("s3://a/model"), "{done}");
    let by_run = format!(r#"{{"pipeline_id": "{run_id}"}}"#);
    assert!(p.list(&a, &by_run).unwrap().contains(&format!("\"idempotency_key\":\"budcore:pipeline/{run_id}/train/1\"")));
    assert!(p.list(&b, &by_run).unwrap().contains("\"items\":[]"));

    // Class 6: B's numbers count B's own.
    let mut next = 1;
    let last = p.watch(&b, 0, 10000, |event| {
        assert!(event.starts_with(&format!("{{\"seq\":{next},")), "event {next}: {event}");
        next += 1;
        true
    }).unwrap();
    assert!(last > 0 && last == next - 1);
    let b_audit = p.audit(&b, r#"{"limit": 1000}"#).unwrap();
    assert_eq!(audit_chain(&b_audit), b_writes);
    assert!(!b_audit.contains(TENANT) && !b_audit.contains(&job_id));
    assert!(audit_chain(&p.audit(&a, r#"{"limit": 1000}"#).unwrap()) >= 4);
    p.check().unwrap();
}

#[test]
fn tenant_boundary_on_sqlite() {
    let dir = std::env::temp_dir().join(format!("budcore-rust-boundary-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let p = with_secrets(&format!("sqlite://{}/p.db", dir.display()), &dir.join("secrets"));
    no_identifier_of_b_reaches_tenant_a(&p, &dir.join("secrets"));
    drop(p);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn tenant_boundary_on_postgres() {
    let Some(uri) = postgres_store("rust_boundary") else {
        eprintln!("tenant_boundary_on_postgres: no BUDCORE_PG_STATE_DIR (make rust-tests starts a server)");
        return;
    };
    let dir = std::env::temp_dir().join(format!("budcore-rust-boundary-pg-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let p = with_secrets(&uri, &dir.join("secrets"));
    no_identifier_of_b_reaches_tenant_a(&p, &dir.join("secrets"));
    drop(p);
    let _ = std::fs::remove_dir_all(&dir);
}
