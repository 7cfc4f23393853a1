//! The Kueue companion's configuration check and decisions from Rust.
use budcore::kueue::{companion_check_config, companion_decide};
use budcore::ErrorCode;

const CONFIG: &str = r#"controllers: [{name: budcore.io/budget, checks: [budget, window]}]
tenants: [{namespace: team-a, tenant_id: 0190e6f4-0000-7000-8000-00000000000a}]
price_book: {currency: USD, gpu_hour: {a100: {on_demand: "2.00"}}}
budgets: {budgets: [{name: team-a, tenant_id: 0190e6f4-0000-7000-8000-00000000000a, amount: "100", hard_limit: true}]}
soft_limit_percent: 80
"#;

/// One pod with 2 GPUs on flavor a100 for 5 h: 20.00 USD.
const WORKLOAD: &str = r#"{"metadata": {"name": "wl", "namespace": "team-a", "uid": "u1",
  "annotations": {"budcore.io/expected-duration": "5h"}},
 "spec": {"podSets": [{"name": "main", "count": 1, "template": {"spec": {"containers":
  [{"name": "c", "resources": {"requests": {"nvidia.com/gpu": "2"}}}]}}}]},
 "status": {"admission": {"clusterQueue": "cq", "podSetAssignments": [{"name": "main",
  "flavors": {"nvidia.com/gpu": "a100"}}]}}}"#;

#[test]
fn companion_config_is_checked_naming_the_field() {
    let out = companion_check_config(CONFIG).unwrap();
    assert!(out.contains(r#""budgets":["team-a"]"#), "{out}");
    assert!(out.contains(r#""estimates":{"enabled":false,"refresh_seconds":5,"writers":8}"#), "{out}");
    let e = companion_check_config("controllers: []\n").unwrap_err();
    assert_eq!(e.code, ErrorCode::Invalid);
    assert_eq!(e.field, "controllers");
}

#[test]
fn companion_decides_ready_retry_and_rejected_by_spend() {
    for (spent, want) in [("50.00 USD", "Ready"), ("70.00 USD", "Retry"), ("90.00 USD", "Rejected")] {
        let req = format!(r#"{{"workload": {WORKLOAD}, "spent": {{"team-a": "{spent}"}}, "now": "2026-11-28T12:00:00Z"}}"#);
        let out = companion_decide(CONFIG, &req).unwrap();
        assert!(out.contains(r#""total":"20.00 USD""#), "{out}");
        assert!(out.contains(&format!(r#""budget":{{"check":"budget","state":"{want}""#)), "{spent}: {out}");
    }
}

#[test]
fn companion_controller_refuses_a_bad_kubeconfig_naming_it() {
    let missing = "/nonexistent/budcore/kubeconfig";
    let e = budcore::kueue::Companion::open(CONFIG, Some(missing), None).err().expect("a missing kubeconfig is refused");
    assert_eq!(e.code, ErrorCode::Invalid);
    assert_eq!(e.field, "kubeconfig_path");
    assert_eq!(e.value, missing);
    let e = budcore::kueue::Companion::open("controllers: []\n", None, None).err().expect("an empty config is refused");
    assert_eq!(e.field, "controllers");
}

/// One pass and a run stopped from another thread on the test bed (tests/k8s_surfaces.sh);
/// a plain `cargo test` skips it.
#[test]
fn companion_controller_syncs_once_and_runs_until_stopped_on_the_testbed() {
    let Ok(state) = std::env::var("BUDCORE_K8S_STATE_DIR") else {
        eprintln!("no Kubernetes test bed (BUDCORE_K8S_STATE_DIR unset): skipped");
        return;
    };
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    let id = format!("rust-{nanos:x}");
    let config = format!(
        "controllers: [{{name: budcore.io/{id}, checks: [budget]}}]\nprice_book: {{currency: USD}}\n\
         budgets: {{budgets: []}}\nleader_election: {{lease_name: {id}, namespace: default, identity: {id}}}\n"
    );
    let dir = std::env::temp_dir().join(&id);
    std::fs::create_dir_all(&dir).unwrap();
    let store = format!("sqlite:{}/companion.db", dir.display());
    let c = budcore::kueue::Companion::open(&config, Some(&format!("{state}/kubeconfig")), Some(&store)).unwrap();
    let pass = c.sync_once().unwrap();
    assert!(pass.contains(r#""leader":true"#), "{pass}");
    assert!(pass.contains(&format!(r#""identity":"{id}""#)), "{pass}");
    assert!(pass.contains(r#""written":[]"#), "{pass}");
    let stopper = c.stopper();
    std::thread::scope(|s| {
        s.spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(1500));
            stopper.stop();
        });
        c.run(|_| true).unwrap();
    });
}
