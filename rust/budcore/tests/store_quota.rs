//! The store's job calls and quota simulate from Rust: tenants kept apart, idempotent
//! submits, pages, and the contract-2 decisions.

use budcore::cost::Store;
use budcore::{quota_simulate, version, version_numbers, ErrorCode};

const TENANT_A: &str = "11111111-1111-4111-8111-111111111111";
const TENANT_B: &str = "22222222-2222-4222-8222-222222222222";
const JOB: &str = r#"{"name": "train", "job_type": "batch", "deployment_type": "docker"}"#;

fn id_of(record: &str) -> String {
    let at = record.find(r#""id":""#).expect("an id") + 6;
    record[at..at + 36].to_string()
}

#[test]
fn store_jobs_are_per_tenant_and_submits_are_idempotent() {
    let store = Store::open("sqlite::memory:").unwrap();
    let first = store.job_submit(TENANT_A, JOB, "key-1").unwrap();
    assert!(first.contains(r#""created":true"#), "{first}");
    let again = store.job_submit(TENANT_A, JOB, "key-1").unwrap();
    assert!(again.contains(r#""created":false"#), "{again}");
    let id = id_of(&first);
    assert_eq!(id, id_of(&again));
    let reused = store.job_submit(TENANT_A, &JOB.replace("\"train\"", "\"train-2\""), "key-1").unwrap_err();
    assert_eq!((reused.code, reused.field.as_str()), (ErrorCode::Invalid, "idempotency_key"));
    let got = store.job_get(TENANT_A, &id).unwrap();
    assert!(got.contains(r#""name":"train""#), "{got}");
    let other = store.job_get(TENANT_B, &id).unwrap_err();
    assert_eq!(other.code, ErrorCode::NotFound);
    store.job_submit(TENANT_A, JOB, "").unwrap();
    let page = store.job_list(TENANT_A, Some(r#"{"limit": 1}"#)).unwrap();
    assert!(page.contains(r#""next_cursor":""#) && !page.contains(r#""next_cursor":"""#), "{page}");
    let none = store.job_list(TENANT_B, None).unwrap();
    assert!(none.contains(r#""items":[]"#), "{none}");
    let bad = store.job_submit(TENANT_A, r#"{"name": "x", "gpu_count": -1}"#, "").unwrap_err();
    assert_eq!(bad.code, ErrorCode::Invalid);
    // Every problem of the document on the one error, and nothing stored.
    let bad = store.job_submit(TENANT_B, r#"{"name": "x", "gpu_count": -1}"#, "").unwrap_err();
    let fields: Vec<String> = bad.problems().into_iter().map(|p| p.field).collect();
    assert_eq!(fields, ["job_type", "deployment_type", "gpu_count"]);
    assert!(store.job_list(TENANT_B, None).unwrap().contains(r#""items":[]"#));
}

#[test]
fn quota_simulate_admits_what_fits() {
    let scenario = r#"{"cycles": "until_quiescent", "resource_flavors": [{"name": "default"}],
      "cluster_queues": [{"name": "cq", "resource_groups": [{"covered_resources": ["cpu"],
        "flavors": [{"name": "default", "resources": [{"name": "cpu", "nominal": "4"}]}]}]}],
      "local_queues": [{"namespace": "ns", "name": "lq", "cluster_queue": "cq"}],
      "workloads": [
        {"name": "a", "namespace": "ns", "queue": "lq", "creation_seq": 1,
         "pod_sets": [{"name": "main", "count": 1, "requests": {"cpu": "3"}}]},
        {"name": "b", "namespace": "ns", "queue": "lq", "creation_seq": 2,
         "pod_sets": [{"name": "main", "count": 1, "requests": {"cpu": "3"}}]}]}"#;
    let out = quota_simulate(scenario).unwrap();
    assert!(out.contains(r#""a":{"#), "{out}");
    assert!(out.contains(r#""pending":{"b":"#), "{out}");
    let err = quota_simulate(r#"{"bogus": 1}"#).unwrap_err();
    assert_eq!((err.code, err.field.as_str()), (ErrorCode::Invalid, "bogus"));
    let (major, minor, _) = version_numbers();
    assert_eq!(format!("{major}.{minor}"), version().rsplit_once('.').unwrap().0);
}

#[test]
fn store_transitions_are_compare_and_set() {
    let store = Store::open("sqlite::memory:").unwrap();
    let id = id_of(&store.job_submit(TENANT_A, JOB, "").unwrap());
    let queued = store.job_transition(TENANT_A, &id, 1, "queued", Some("in line")).unwrap();
    assert!(queued.contains(r#""status":"queued""#) && queued.contains(r#""version":2"#), "{queued}");
    let lost = store.job_transition(TENANT_A, &id, 1, "scheduled", None).unwrap_err();
    assert_eq!(lost.code, ErrorCode::Conflict);
    let unknown = store.job_transition(TENANT_A, &id, 2, "finished", None).unwrap_err();
    assert_eq!((unknown.code, unknown.field.as_str()), (ErrorCode::Invalid, "to"));
    assert_eq!(store.job_transition(TENANT_B, &id, 2, "scheduled", None).unwrap_err().code, ErrorCode::NotFound);
}

#[test]
fn a_quota_engine_lives_across_calls() {
    let config = r#"{"resource_flavors": [{"name": "default"}],
      "cluster_queues": [{"name": "cq", "resource_groups": [{"covered_resources": ["cpu"],
        "flavors": [{"name": "default", "resources": [{"name": "cpu", "nominal": "4"}]}]}]}],
      "local_queues": [{"namespace": "ns", "name": "lq", "cluster_queue": "cq"}]}"#;
    let w = |name: &str| {
        format!(r#"{{"name": "{name}", "namespace": "ns", "queue": "lq", "pod_sets": [{{"name": "main", "count": 1, "requests": {{"cpu": "3"}}}}]}}"#)
    };
    let engine = budcore::QuotaEngine::new(config).unwrap();
    engine.add(&w("a")).unwrap();
    engine.add(&w("b")).unwrap();
    assert!(engine.cycle().unwrap().contains(r#""admitted":["ns/a"]"#));
    assert!(engine.run(100).unwrap() >= 1);
    assert!(engine.status("ns/b").unwrap().contains(r#""state":"pending""#));
    engine.finish("ns/a").unwrap();
    engine.run(100).unwrap();
    assert!(engine.status("ns/b").unwrap().contains(r#""state":"admitted""#));
    assert_eq!(engine.status("ns/zzz").unwrap_err().code, ErrorCode::NotFound);
    let bad = engine.add(r#"{"name": "c", "queue": "lq", "pod_sets": [{"count": -1}]}"#).unwrap_err();
    assert!(bad.field.starts_with("workload.pod_sets[0]"), "{}", bad.field);
    assert!(engine.statuses().unwrap().starts_with('['));
    assert_eq!(budcore::QuotaEngine::new(r#"{"cluster_queues": 3}"#).err().unwrap().field, "cluster_queues");
}

#[test]
fn serverless_queue_claim_and_complete_once() {
    let store = Store::open("sqlite::memory:").unwrap();
    let endpoint = r#"{"name": "chat", "model": "m"}"#;
    let out = store
        .serverless_queue_enqueue(TENANT_A, endpoint, r#"[{"tenant": "acme", "priority": "premium"}]"#)
        .unwrap();
    assert!(out.contains(r#""deduplicated":false"#), "{out}");
    let claimed = store.serverless_queue_claim(TENANT_A, "chat", "w1", 10, 30.0).unwrap();
    assert!(claimed.contains(r#""claim":1"#) && claimed.contains(r#""status":"assigned""#), "{claimed}");
    let done = store
        .serverless_queue_finish(TENANT_A, r#"[{"id": 1, "claim": 1, "outcome": "complete"}]"#)
        .unwrap();
    assert!(done.contains(r#""ok":true"#), "{done}");
    let again = store
        .serverless_queue_finish(TENANT_A, r#"[{"id": 1, "claim": 1, "outcome": "complete"}]"#)
        .unwrap();
    assert!(again.contains(r#""ok":false"#), "{again}");
    assert!(store.serverless_queue_status(TENANT_A, "chat").unwrap().contains(r#""completed":1"#));
    let e = store
        .serverless_queue_enqueue(TENANT_A, endpoint, r#"[{"tenant": "acme", "priority": "urgent"}]"#)
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::Invalid);
    assert_eq!(e.field, "submissions[0].priority");
}
