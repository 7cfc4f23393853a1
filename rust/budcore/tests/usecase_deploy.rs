//! Use-case deployments from Rust: deploy a shipped template, read it back, list, tear down
//! (twice), and the errors (a bad parameter names its path; an unknown template).

use budcore::{Caller, ErrorCode, Platform};

const TENANT: &str = "00000000-0000-4000-8000-0000000000e7";
const PARAMS: &str = r#"{"model_id": "meta-llama/Llama-3.1-8B-Instruct", "gpu_type": "nvidia-a100-80gb"}"#;

fn temp_dir(tag: &str) -> String {
    let d = std::env::temp_dir().join(format!("budcore-rust-{}-{}", tag, std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d.to_string_lossy().into_owned()
}

fn id_of(json: &str) -> String {
    let at = json.find("\"id\":\"").expect("an id") + 6;
    json[at..at + 36].to_string()
}

#[test]
fn deploy_read_list_and_teardown() {
    let dir = temp_dir("usecase-deploy");
    let p = Platform::open_embedded(&dir).unwrap();
    let me = Caller::tenant(TENANT);
    let d = p.deploy_usecase(&me, "simple-rag-v1", Some(PARAMS)).unwrap();
    assert!(d.contains("\"template_id\":\"simple-rag-v1\""));
    let id = id_of(&d);
    p.run(Some(3600.0)).unwrap();
    assert!(p.deployment(&me, &id).unwrap().contains("\"status\":\"running\""));
    assert!(p.deployments(&me).unwrap().contains(&id));
    let other = Caller::tenant("00000000-0000-4000-8000-0000000000e8");
    assert_eq!(p.deployment(&other, &id).unwrap_err().code, ErrorCode::NotFound);
    assert_eq!(p.deployments(&other).unwrap(), "[]");
    let down = p.teardown_deployment(&me, &id).unwrap();
    assert!(down.contains("\"status\":\"deleted\""));
    assert!(!down.contains("\"job_status\":\"running\""));
    assert!(p.teardown_deployment(&me, &id).unwrap().contains("\"status\":\"deleted\""));
    p.check().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_input_is_an_error_naming_the_path() {
    let dir = temp_dir("usecase-deploy-bad");
    let p = Platform::open_embedded(&dir).unwrap();
    let me = Caller::tenant(TENANT);
    let bad = p.deploy_usecase(&me, "simple-rag-v1", Some(r#"{"model_id": "m", "top_kk": 3}"#)).unwrap_err();
    assert_eq!(bad.code, ErrorCode::Invalid);
    assert_eq!(bad.field, "parameters.top_kk");
    let unknown = p.deploy_usecase(&me, "no-such-template", None).unwrap_err();
    assert_eq!(unknown.code, ErrorCode::NotFound);
    assert_eq!(unknown.field, "template");
    assert_eq!(p.deployments(&me).unwrap(), "[]");
    let _ = std::fs::remove_dir_all(&dir);
}
