//! The platform from Rust: submit, run the virtual clock, read back, events by callback,
//! errors with their field, a pipeline run, a scenario, and a handle shared by threads.

use std::sync::Arc;

use budcore::{simulate, Caller, ErrorCode, Platform};

const TENANT: &str = "00000000-0000-4000-8000-0000000000e1";
const JOB: &str = r#"{"name": "rust-train", "job_type": "BATCH", "deployment_type": "DOCKER",
  "gpu_type": "nvidia-a100-80gb", "gpu_count": 2, "estimated_duration_seconds": 600}"#;

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
fn a_job_runs_to_completion() {
    let dir = temp_dir("job");
    let p = Platform::open_embedded(&dir).unwrap();
    let me = Caller { tenant: TENANT, principal: "user:rust", request_id: "r-1" };
    let stored = p.submit(&me, JOB, Some("k1")).unwrap();
    assert!(stored.contains("\"created\":true"));
    let id = id_of(&stored);
    let timeline = p.schedule(&me).unwrap();
    assert!(timeline.contains(&format!("\"name\":\"{}\"", id)) && timeline.contains("\"estimated_end\":"));
    assert!(p.schedule(&Caller::tenant("00000000-0000-4000-8000-0000000000e2")).unwrap().contains("\"jobs\":[]"));
    assert!(p.run(None).unwrap().contains("2026-01-01T00:10:00Z"));
    assert!(p.get(&me, &id).unwrap().contains("\"status\":\"completed\""));
    let mut seen = Vec::new();
    let last = p.watch(&me, 0, 100, |e| { seen.push(e.to_string()); true }).unwrap();
    assert!(last > 0 && seen.len() >= 4);
    let stop = p.watch(&me, 0, 100, |_| false).unwrap_err();
    assert_eq!(stop.code, ErrorCode::User);
    let err = p.cancel(&me, &id, "late").unwrap_err();
    assert_eq!(err.code, ErrorCode::Conflict);
    let other = Caller::tenant("00000000-0000-4000-8000-0000000000e2");
    assert_eq!(p.get(&other, &id).unwrap_err().code, ErrorCode::NotFound);
    let bad = p.submit(&me, r#"{"name": "x", "job_type": "BATCH", "deployment_type": "DOCKER", "gpu_count": -1}"#, None);
    assert_eq!(bad.unwrap_err().field, "gpu_count");
    assert!(p.metrics().unwrap().contains("job_state_transitions_total"));
    assert!(p.ha_status().unwrap().contains(r#""role":"single""#));
    p.check().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn pipelines_scenarios_and_threads() {
    let dir = temp_dir("pipe");
    let p = Arc::new(Platform::open_embedded(&dir).unwrap());
    let me = Caller::tenant(TENANT);
    let run = p
        .run_pipeline(
            &me,
            r#"{"pipeline": {"id": "p", "name": "rust-pipe"}, "steps": [{"id": "a", "name": "a",
               "step_type": "JOB", "depends_on": [], "config": {"job_type": "BATCH",
               "deployment_type": "DOCKER", "estimated_duration_seconds": 30}}]}"#,
            None,
        )
        .unwrap();
    let run_id = id_of(&run);
    let workers: Vec<_> = (0..4)
        .map(|i| {
            let p = Arc::clone(&p);
            std::thread::spawn(move || {
                let me = Caller::tenant(TENANT);
                let doc = format!(r#"{{"name": "t{}", "job_type": "BATCH", "deployment_type": "DOCKER"}}"#, i);
                p.submit(&me, &doc, None).unwrap();
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    p.run(Some(7200.0)).unwrap();
    assert!(p.pipeline_run(&me, &run_id).unwrap().contains("\"status\":\"completed\""));
    let list = p.list(&me, r#"{"status": "completed"}"#).unwrap();
    assert_eq!(list.matches("\"status\":\"completed\"").count(), 5);
    let out = simulate("jobs: [{at: 10, job: {name: w, job_type: BATCH, deployment_type: DOCKER, estimated_duration_seconds: 60}}]").unwrap();
    assert!(out.contains("\"ended_at\":70"));
    assert_eq!(simulate("jobs: [{at: -1}]").unwrap_err().field, "jobs[0].at");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn compaction_cuts_the_event_log_and_an_old_watch_is_gone() {
    let dir = temp_dir("retention");
    let p = Platform::open(&format!("store: sqlite://{}/r.db\nretention: {{events: {{max_count: 2}}}}\n", dir)).unwrap();
    let me = Caller { tenant: TENANT, principal: "user:rust", request_id: "r-9" };
    p.submit(&me, JOB, None).unwrap();
    p.run(None).unwrap();
    let report = p.compact(&me).unwrap();
    assert!(report.contains(r#""log":"events""#), "{}", report);
    let gone = p.events(&me, 0, 100).unwrap_err();
    assert_eq!(gone.code, ErrorCode::Gone);
    assert_eq!(gone.field, "since");
    let resume: i64 = gone.value.parse().unwrap();
    assert!(p.events(&me, resume, 100).unwrap().contains("\"events\":["));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_plan_that_frees_a_gang_waiting_for_placement() {
    // Two A100 nodes of 4 GPUs under worst_fit: a and b take one GPU on each node, so c (4 GPUs),
    // which the quota admits, waits for placement; moving a (1 GPU x (0 + 60) s) frees it.
    let dir = temp_dir("defrag");
    let config = format!(
        "store: sqlite://{dir}/gpu.db\nclock: virtual\ncluster:\n  placement_policy: worst_fit\n  inventory:\n    \
         - {{name: a100, flavor: a100-80gb, nodes: 2, gpu_type: nvidia-a100-80gb, gpus_per_node: 4, cpu_per_node: \"96\", memory_per_node: 1Ti}}\n"
    );
    let p = Platform::open(&config).unwrap();
    let me = Caller { tenant: TENANT, principal: "user:rust", request_id: "r-g" };
    let job = |name: &str, gpus: u32, seconds: u32| {
        format!(r#"{{"name": "{name}", "job_type": "BATCH", "deployment_type": "DOCKER", "gpu_type": "nvidia-a100-80gb", "gpu_count": {gpus}, "estimated_duration_seconds": {seconds}}}"#)
    };
    let a = id_of(&p.submit(&me, &job("a", 1, 300), None).unwrap());
    p.submit(&me, &job("b", 1, 600), None).unwrap();
    let c = id_of(&p.submit(&me, &job("c", 4, 600), None).unwrap());
    p.pump().unwrap();
    let plan = p.gpu_defrag(&me, &c).unwrap();
    assert!(plan.contains(r#""kind":"move""#) && plan.contains(r#""applied":false"#), "{plan}");
    assert!(plan.contains(&format!(r#""workload":"{a}""#)), "{plan}");
    let e = p.gpu_defrag(&me, &a).unwrap_err();
    assert_eq!((e.code, e.field.as_str()), (ErrorCode::Invalid, "job"));
    let other = Caller::tenant("00000000-0000-4000-8000-0000000000e2");
    assert_eq!(p.gpu_defrag(&other, &c).unwrap_err().code, ErrorCode::NotFound);
    // A plan the cluster no longer gives is refused naming where; the plan above is applied.
    let stale = plan.replacen(r#""node":"a100-0""#, r#""node":"a100-1""#, 1);
    let e = p.gpu_defrag_apply(&me, &c, &stale).unwrap_err();
    assert_eq!((e.code, e.field.as_str()), (ErrorCode::Conflict, "plan.node"));
    let applied = p.gpu_defrag_apply(&me, &c, &plan).unwrap();
    assert!(applied.contains(r#""applied":true"#), "{applied}");
    assert!(p.get(&me, &c).unwrap().contains(r#""status":"running""#));
}
