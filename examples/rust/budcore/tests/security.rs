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
