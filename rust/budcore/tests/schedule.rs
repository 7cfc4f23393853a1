use budcore::{schedule_estimate, schedule_html, schedule_replay, ErrorCode, Timeline};

const SCENARIO: &str = r#"{"resource_flavors": [{"name": "on-demand"}],
 "cluster_queues": [{"name": "cq-a", "resource_groups": [{"covered_resources": ["cpu"],
   "flavors": [{"name": "on-demand", "resources": [{"name": "cpu", "nominal": "10"}]}]}]}],
 "local_queues": [{"namespace": "ns", "name": "lq", "cluster_queue": "cq-a"}],
 "workloads": [
  {"name": "w1", "namespace": "ns", "queue": "lq", "creation_seq": 1, "duration_seconds": 600,
   "pod_sets": [{"count": 1, "requests": {"cpu": "6"}}]},
  {"name": "w2", "namespace": "ns", "queue": "lq", "creation_seq": 2, "duration_seconds": 300,
   "pod_sets": [{"count": 1, "requests": {"cpu": "6"}}]}]}"#;

#[test]
fn estimates_the_contract_output() {
    let out = schedule_estimate(SCENARIO, false).expect("valid scenario");
    assert!(out.contains(r#""name":"w2","cluster_queue":"cq-a","flavors":{"main":{"cpu":"on-demand"}},"estimated_start":600,"estimated_end":900"#), "{out}");
    assert!(out.ends_with(r#""never":{},"makespan":900}"#), "{out}");
}

#[test]
fn errors_name_the_field() {
    let bad = SCENARIO.replace(r#""duration_seconds": 300"#, r#""duration_seconds": -3"#);
    let e = schedule_estimate(&bad, false).unwrap_err();
    assert_eq!(e.code, ErrorCode::Invalid);
    assert_eq!(e.field, "workloads[1].duration_seconds");
}

#[test]
fn a_live_timeline_revises_estimates() {
    let mut tl = Timeline::new(SCENARIO).expect("valid scenario");
    tl.started("w1", 0.0, r#"{"cluster_queue": "cq-a", "flavors": {"main": {"cpu": "on-demand"}}}"#).unwrap();
    tl.finished("w1", 120.0).unwrap();
    let out = tl.result(true).unwrap();
    assert!(out.contains(r#""name":"w2","cluster_queue":"cq-a","flavors":{"main":{"cpu":"on-demand"}},"estimated_start":120"#), "{out}");
    let e = tl.finished("w1", 130.0).unwrap_err();
    assert_eq!(e.code, ErrorCode::Conflict);
}

#[test]
fn html_and_replay() {
    let page = schedule_html(SCENARIO).unwrap();
    assert!(page.contains("<svg") && page.contains("cpu-pool-1"));
    let gen = r#"{"cohorts": [{"className": "cohort", "count": 1, "queuesSets": [{"className": "cq", "count": 2,
      "nominalQuota": 4, "workloadsSets": [{"count": 10, "creationIntervalMs": 100,
      "workloads": [{"className": "small", "runtimeMs": 200, "priority": 50, "request": 1}]}]}]}]}"#;
    let r = schedule_replay(gen).unwrap();
    assert!(r.contains(r#""workloads":20"#), "{r}");
}
