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
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../tests/backends/pg_fixture.sh");
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
    let seen = p.list(&b, "").unwrap() + &p.events(&b, 0, 1000).unwrap() + &p.audit(&b, "").unwrap()
        + &p.deployments(&b).unwrap();
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
