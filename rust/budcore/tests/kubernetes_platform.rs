//! The platform on a real Kueue (cluster.backend: kubernetes) from Rust: a job admitted by
//! Kueue, a second waiting for the single GPU, cancel freeing its quota, an administrator's
//! preemption requeued. Needs the Kubernetes test bed (BUDCORE_K8S_STATE_DIR, set by
//! tests/k8s_surfaces.sh in `make test`); a plain `cargo test` skips it.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use budcore::{Caller, Platform};

const TENANT: &str = "00000000-0000-4000-8000-0000000000e8";

fn job(name: &str) -> String {
    format!(
        r#"{{"name": "{name}", "job_type": "BATCH", "deployment_type": "DOCKER", "gpu_count": 1,
            "cpu_cores": "1", "memory_gb": 1, "spec": {{"image": "busybox:1.36"}}}}"#
    )
}

fn id_of(json: &str) -> String {
    let at = json.find("\"id\":\"").expect("an id") + 6;
    json[at..at + 36].to_string()
}

// The job's status is `status` and its record mentions `also`.
fn has_status(p: &Platform, me: &Caller, id: &str, status: &str, also: &str) -> bool {
    p.get(me, id)
        .map(|j| j.contains(&format!("\"status\":\"{status}\"")) && j.contains(also))
        .unwrap_or(false)
}

// The platform's own thread follows the cluster (clock: system): poll for up to 60 s.
fn wait_status(p: &Platform, me: &Caller, id: &str, status: &str, also: &str) -> bool {
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if has_status(p, me, id, status, also) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    has_status(p, me, id, status, also)
}

#[test]
fn a_platform_on_kueue_admits_cancels_and_requeues() {
    let Ok(state) = std::env::var("BUDCORE_K8S_STATE_DIR") else {
        eprintln!("no Kubernetes test bed (BUDCORE_K8S_STATE_DIR unset): skipped");
        return;
    };
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos();
    let q = format!("r{:x}", (nanos as u64) ^ ((std::process::id() as u64) << 20));
    let dir = std::env::temp_dir().join(format!("budcore-rust-k8s-{q}"));
    std::fs::create_dir_all(&dir).unwrap();
    let config = format!(
        r#"store: "sqlite://{dir}/k.db"
clock: system
cluster: {{backend: kubernetes, kubernetes: {{kubeconfig: "{state}/kubeconfig"}}}}
queues: {{service: {q}, batch: {q}, training: {q}, usecase: {q}, tenant_namespace_prefix: {q}-}}
quota:
  resource_flavors: [{{name: f{q}, node_labels: {{gpu.type: f{q}}}}}]
  cluster_queues:
    - name: {q}
      resource_groups:
        - covered_resources: [cpu, memory, nvidia.com/gpu]
          flavors: [{{name: f{q}, resources: [{{name: cpu, nominal: "8"}}, {{name: memory, nominal: 64Gi}}, {{name: nvidia.com/gpu, nominal: "1"}}]}}]
"#,
        dir = dir.display()
    );
    let p = match Platform::open(&config) {
        Ok(p) => p,
        Err(e) => panic!("opening the platform on the test bed: {}", e.message),
    };
    let me = Caller::tenant(TENANT);
    let first = id_of(&p.submit(&me, &job("first"), None).unwrap());
    assert!(wait_status(&p, &me, &first, "scheduled", ""), "{:?}", p.get(&me, &first));
    let second = id_of(&p.submit(&me, &job("second"), None).unwrap()); // one GPU in all: it waits
    std::thread::sleep(Duration::from_millis(1500));
    assert!(has_status(&p, &me, &second, "queued", ""), "{:?}", p.get(&me, &second));
    let cancelled = p.cancel(&me, &first, "make room").unwrap();
    assert!(cancelled.contains("\"status\":\"cancelled\""), "{cancelled}");
    assert!(wait_status(&p, &me, &second, "scheduled", ""), "{:?}", p.get(&me, &second));
    p.preempt(&me, &second, "maintenance").unwrap();
    // Preempted (the reason in its history), requeued and admitted again.
    assert!(wait_status(&p, &me, &second, "scheduled", "maintenance"), "{:?}", p.get(&me, &second));
    p.check().unwrap();
    drop(p);
    let _ = std::fs::remove_dir_all(&dir);
}
