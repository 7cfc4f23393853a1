use budcore::cost::{self, Store};
use budcore::ErrorCode;

const PRICES: &str = r#"currency: USD
gpu_hour:
  nvidia-a100-80gb: {on_demand: "2.49", spot: "1.19"}
cpu_core_hour: {on_demand: "0.04", spot: "0.02"}
memory_gib_hour: {on_demand: "0.005", spot: "0.0025"}
minimum_billable_seconds: 60
"#;
const TENANT: &str = "0190e6f4-5c3a-7abc-8def-00000000000a";
const JOB: &str = "0190e6f4-5c3a-7abc-8def-0000000000f1";

#[test]
fn estimates_exactly_and_reports_contract_codes() {
    let job = r#"{"job_type": "batch", "gpu_type": "nvidia-a100-80gb", "gpu_count": 2, "cpu_cores": 8,
        "memory_gb": 64, "estimated_duration_seconds": 5400}"#;
    let out = cost::estimate(PRICES, job).unwrap();
    assert!(out.contains(r#""total":"8.430000""#), "{out}");
    assert!(cost::compare_tiers(PRICES, job)
        .unwrap()
        .contains(r#""savings":"4.380000""#));
    let err = cost::estimate(
        PRICES,
        r#"{"job_type": "batch", "gpu_type": "h100", "gpu_count": 1,
        "estimated_duration_seconds": 1}"#,
    )
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    assert_eq!(err.field, "gpu_type");
    assert_eq!(cost::contract_code(&err), "unknown_price");
    let err = cost::estimate(PRICES, r#"{"job_type": "batch"}"#).unwrap_err();
    assert_eq!(cost::contract_code(&err), "missing_field");
    assert_eq!(err.field, "estimated_duration_seconds");
    let cheap = cost::cheapest_gpu(PRICES, r#"{"memory_gib": 40}"#).unwrap();
    assert!(cheap.contains("nvidia-a100-80gb"));
}

#[test]
fn meters_reports_and_forecasts() {
    let interval = format!(
        r#"{{"tenant_id": "{TENANT}", "job_id": "{JOB}", "gpu_type": "nvidia-a100-80gb", "gpu_count": 1,
            "start": "2026-05-02T00:00:00Z", "end": "2026-05-02T01:00:00Z", "labels": {{"team": "x"}}}}"#
    );
    let record = cost::meter(PRICES, &interval).unwrap();
    assert!(record.contains(r#""computed_cost":"2.49""#), "{record}");
    let usage = format!("[{record}]");
    let report = cost::report(&usage, Some(r#"{"by": ["label:team"]}"#), None).unwrap();
    assert!(report.contains(r#""label:team":"x""#), "{report}");
    let unpriced = cost::report(&format!("[{interval}]"), None, None).unwrap_err();
    assert_eq!(unpriced.field, "usage[0].computed_cost");
    let f = cost::forecast(&usage, Some("2026-05-04T00:00:00Z")).unwrap();
    assert!(f.contains(r#""month_to_date":"2.49""#), "{f}");
}

#[test]
fn serverless_spend_per_endpoint_per_hour() {
    // One worker's row from 00:30 to 01:30, half of it busy: half in each hour.
    let interval = format!(
        r#"{{"tenant_id": "{TENANT}", "job_id": "{JOB}", "gpu_type": "nvidia-a100-80gb", "gpu_count": 1,
            "start": "2026-05-02T00:30:00Z", "end": "2026-05-02T01:30:00Z", "gpu_utilization": "0.5",
            "labels": {{"serverless_endpoint": "chat"}}}}"#
    );
    let out = cost::serverless_report(&format!("[{interval}]"), None, Some(PRICES)).unwrap();
    assert!(out.contains(r#""granularity":"hour""#), "{out}");
    assert_eq!(out.matches(r#""endpoint":"chat""#).count(), 2, "{out}");
    assert!(out.contains(r#""bucket":"2026-05-02T01:00:00Z""#), "{out}");
    assert!(out.contains(r#""busy_gpu_seconds":"900""#), "{out}");
    let err = cost::serverless_report("[]", Some(r#"{"endpoint": 7}"#), None).unwrap_err();
    assert_eq!(err.field, "endpoint");
}

#[test]
fn store_backed_metering_and_the_admission_gate() {
    let dir = std::env::temp_dir().join(format!("budcore_rust_cost_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let store = Store::open(&format!("sqlite://{}", dir.join("s.db").display())).unwrap();
    let interval = format!(
        r#"{{"tenant_id": "{TENANT}", "job_id": "{JOB}", "gpu_type": "nvidia-a100-80gb", "gpu_count": 1,
            "start": "2026-05-02T00:00:00Z", "end": "2026-05-02T02:00:00Z"}}"#
    );
    assert!(store
        .record_usage(PRICES, &interval)
        .unwrap()
        .contains(r#""computed_cost":"4.98""#));
    assert!(store
        .job_cost(TENANT, JOB)
        .unwrap()
        .contains(r#""total":"4.98""#));
    let budgets = format!(
        "budgets:\n  - {{name: b, tenant_id: {TENANT}, amount: \"6\", hard_limit: true}}\n"
    );
    let job = |hours: u32| {
        format!(
            r#"{{"name": "j", "tenant_id": "{TENANT}", "job_type": "batch", "deployment_type": "docker",
                "gpu_type": "nvidia-a100-80gb", "gpu_count": 1, "cpu_cores": 0, "memory_gb": 0,
                "estimated_duration_seconds": {}}}"#,
            hours * 1800
        )
    };
    let now = Some("2026-05-10T00:00:00Z");
    assert!(store
        .admit_job(&budgets, PRICES, &job(0), now)
        .unwrap()
        .contains(r#""allowed":true"#));
    let denied = store.admit_job(&budgets, PRICES, &job(1), now).unwrap_err();
    assert_eq!(denied.code, ErrorCode::Budget);
    assert_eq!(denied.field, "budgets.b");
    drop(store);
    std::fs::remove_dir_all(&dir).ok();
}
