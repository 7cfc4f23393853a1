//! A serverless endpoint on a platform: its worker is a job the platform admits, a request is
//! placed on it warm, and its busy and idle GPU time comes back as usage rows.

use budcore::{Caller, Platform, ServerlessEndpoint};

const ENDPOINT: &str = "name: chat\nmodel: llama-3-8b\nconcurrency_per_worker: 1\n\
cold_start: {container_seconds: 2, model_gib: 1, load_gib_per_second: 1, warmup_seconds: 0}\n\
warm_pool: {min_warm_workers: 0, max_warm_workers: 2, target_warm_workers: 0}\n";

#[test]
fn workers_are_jobs_and_their_time_is_metered() {
    let dir = std::env::temp_dir().join(format!("budcore-rust-sls-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let config = format!(
        "store: \"sqlite://{}/budcore.db\"\nclock: virtual\ncost:\n  prices: {{currency: USD, gpu_hour: {{nvidia-a100-80gb: {{on_demand: \"3.60\"}}}}, cpu_core_hour: {{on_demand: \"0\"}}, memory_gib_hour: {{on_demand: \"0\"}}}}\n",
        dir.display()
    );
    let p = Platform::open(&config).unwrap();
    let owner = Caller::tenant("00000000-0000-4000-8000-0000000000e2");
    let mut ep = ServerlessEndpoint::open(&p, &owner, ENDPOINT, None).unwrap();
    assert!(ep.scale(Some(1)).unwrap().contains("\"queued\":1"));
    p.run(Some(5.0)).unwrap();
    assert!(ep.scale(None).unwrap().contains("\"ready\":1"));
    let placed = ep
        .enqueue(r#"[{"tenant": "acme", "payload_hash": "h1", "estimated_compute_seconds": 10, "priority": "premium"}]"#)
        .unwrap();
    assert!(placed.contains("\"placement\":\"warm\""), "{placed}");
    p.run(Some(10.0)).unwrap();
    assert_eq!(ep.finish(1, None).unwrap(), "{\"assignments\":[]}");
    p.run(Some(10.0)).unwrap();
    let usage = ep.meter().unwrap();
    assert!(usage.contains("\"idle_gpu_seconds\":\"15\""), "{usage}");
    assert!(ep.scale(Some(0)).unwrap().contains("\"stopped\":1"));
    drop(ep);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The cold start takes 3 s, the warm-up timeout is 2 s: the worker is cancelled and counted.
#[test]
fn a_worker_warming_up_past_its_timeout_is_cancelled_and_counted() {
    let dir = std::env::temp_dir().join(format!("budcore-rust-sls-warmup-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let p = Platform::open(&format!("store: \"sqlite://{}/budcore.db\"\nclock: virtual\n", dir.display())).unwrap();
    let owner = Caller::tenant("00000000-0000-4000-8000-0000000000e3");
    let slow = ENDPOINT.replace("target_warm_workers: 0}", "target_warm_workers: 0, warmup_timeout_seconds: 2}");
    let mut ep = ServerlessEndpoint::open(&p, &owner, &slow, None).unwrap();
    let started = ep.scale(Some(1)).unwrap();
    let job = started.split("\"job\":\"").nth(1).and_then(|rest| rest.split('"').next()).unwrap().to_string();
    p.run(Some(1.0)).unwrap();
    let s = ep.scale(None).unwrap();
    assert!(s.contains("\"starting\":1") && s.contains("\"failed_starts\":0"), "{s}");
    p.run(Some(1.0)).unwrap();
    let s = ep.scale(None).unwrap();
    assert!(s.contains("\"failed_starts\":1"), "{s}");
    let metrics = p.metrics().unwrap();
    assert!(metrics.contains("budcore_serverless_failed_starts_total{endpoint=") && metrics.contains("\"} 1\n"), "{metrics}");
    let stored = p.get(&owner, &job).unwrap();
    assert!(stored.contains("\"status\":\"cancelled\""), "{stored}");
    assert!(stored.contains("warmup_timeout_seconds"), "{stored}");
    drop(ep);
    let _ = std::fs::remove_dir_all(&dir);
}
