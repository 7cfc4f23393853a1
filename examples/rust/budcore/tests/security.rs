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

#[test]
fn tenant_b_sees_nothing_of_tenant_a() {
    let dir = std::env::temp_dir().join(format!("budcore-rust-isolation-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let p = Platform::open_embedded(dir.to_str().unwrap()).unwrap();
    let a = Caller { tenant: TENANT, principal: "user:a", request_id: "" };
    let b = Caller { tenant: "00000000-0000-4000-8000-0000000000e8", principal: "user:b", request_id: "" };
    let rec = p.submit(&a, JOB, Some("shared")).unwrap();
    let at = rec.find("\"id\":\"").unwrap() + 6;
    let id = rec[at..at + 36].to_string();
    let unknown = "00000000-0000-4000-8000-00000000dead";
    for probe in [
        &(|i: &str| p.get(&b, i)) as &dyn Fn(&str) -> Result<String, budcore::Error>,
        &|i: &str| p.cancel(&b, i, ""),
        &|i: &str| p.retry(&b, i),
        &|i: &str| p.set_priority(&b, i, "critical"),
        &|i: &str| p.preempt(&b, i, ""),
    ] {
        let on_a = probe(&id).unwrap_err();
        let on_none = probe(unknown).unwrap_err();
        assert_eq!((on_a.code, on_none.code), (ErrorCode::NotFound, ErrorCode::NotFound));
        assert_eq!(on_a.message.replace(&id, "<id>"), on_none.message.replace(unknown, "<id>"));
    }
    let replay = p.submit(&b, JOB, Some("shared")).unwrap();
    assert!(replay.contains("\"created\":true") && !replay.contains(&id));
    let seen = p.list(&b, "").unwrap() + &p.events(&b, 0, 1000).unwrap();
    assert!(!seen.contains(&id) && !seen.contains(TENANT));
    drop(p);
    let _ = std::fs::remove_dir_all(&dir);
}
