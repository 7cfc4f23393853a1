//! Cost controls on a platform opened from a config whose `cost` section holds a price book
//! and budgets: actual_cost, the job-level budget_limit, a budget refusing admission, and a bad
//! section named by its path.

use budcore::{Caller, ErrorCode, Platform};

const TENANT: &str = "00000000-0000-4000-8000-0000000000e1";
const COST: &str = r#"cost:
  prices:
    currency: USD
    gpu_hour: {nvidia-a100-80gb: {on_demand: "2.00"}}
    cpu_core_hour: {on_demand: "0"}
    memory_gib_hour: {on_demand: "0"}
  budgets:
    - {name: rust-team, tenant_id: 00000000-0000-4000-8000-0000000000e1, amount: "2.50", hard_limit: true}
"#;

fn job(name: &str, seconds: i64, limit: &str) -> String {
    format!(
        r#"{{"name": "{name}", "job_type": "BATCH", "deployment_type": "DOCKER", "gpu_type": "nvidia-a100-80gb",
            "gpu_count": 1, "estimated_duration_seconds": {seconds}{limit}}}"#
    )
}

fn id_of(json: &str) -> String {
    let at = json.find("\"id\":\"").expect("an id") + 6;
    json[at..at + 36].to_string()
}

#[test]
fn a_cost_section_fills_actual_cost_and_enforces_budget_limit() {
    let dir = std::env::temp_dir().join(format!("budcore-rust-cost-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let store = format!("store: \"sqlite://{}/budcore.db\"\n", dir.display());

    let err = match Platform::open(&format!("{store}cost: {{budgets: []}}\n")) {
        Ok(_) => panic!("budgets without prices must not open"),
        Err(e) => e,
    };
    assert_eq!(err.code, ErrorCode::Invalid);
    assert_eq!(err.field, "cost.prices");

    let p = Platform::open(&format!("{store}{COST}")).unwrap();
    let me = Caller::tenant(TENANT);
    let capped = id_of(&p.submit(&me, &job("capped", 3600, r#", "budget_limit": "1.00""#), None).unwrap());
    let short = id_of(&p.submit(&me, &job("twenty-minutes", 1200, ""), None).unwrap());
    p.run(None).unwrap();
    let stopped = p.get(&me, &capped).unwrap();
    assert!(stopped.contains("\"status\":\"failed\""), "{stopped}");
    assert!(stopped.contains("BudgetExceeded") && stopped.contains("budget_limit"), "{stopped}");
    assert!(stopped.contains("\"actual_cost\":\"1.000555555556\""), "{stopped}");
    let done = p.get(&me, &short).unwrap();
    assert!(done.contains("\"status\":\"completed\""), "{done}");
    assert!(done.contains("\"actual_cost\":\"0.666666666667\""), "{done}");
    let denied = p.submit(&me, &job("one-more-hour", 3600, ""), None).unwrap_err();
    assert_eq!(denied.code, ErrorCode::Budget);
    assert!(denied.message.contains("rust-team"), "{}", denied.message);
    p.check().unwrap();
    drop(p);
    let _ = std::fs::remove_dir_all(&dir);
}
