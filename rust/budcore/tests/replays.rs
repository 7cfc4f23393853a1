//! The GPU trace replay and the serverless simulation from Rust, on the files of tests/data.
use std::path::PathBuf;

use budcore::{gpu_defrag, gpu_place_mig, gpu_replay, serverless_simulate, ErrorCode};

fn data(name: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data").join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The integer after the first `"key":` in `json`.
fn int_after(json: &str, key: &str) -> i64 {
    let pat = format!("\"{key}\":");
    let at = json.find(&pat).unwrap_or_else(|| panic!("no {key} in {json}")) + pat.len();
    let digits: String = json[at..].chars().take_while(|c| c.is_ascii_digit() || *c == '-').collect();
    digits.parse().unwrap()
}

/// Data rows of a CSV text (less the header).
fn data_rows(csv: &str) -> usize {
    csv.lines().filter(|l| !l.trim().is_empty()).count() - 1
}

#[test]
fn gpu_replay_follows_the_input() {
    let (nodes, pods) = (data("gpu/nodes.csv"), data("gpu/pods.csv"));
    let gpus: i64 = nodes.lines().skip(1).map(|l| l.split(',').nth(3).unwrap().parse::<i64>().unwrap()).sum();
    let opts = r#"{"policies": ["fgd", "best_fit"], "seed": 5, "max_load": 0.4, "step": 0.1}"#;
    let out = gpu_replay(&nodes, &pods, opts).expect("valid input");
    assert_eq!(int_after(&out, "nodes"), data_rows(&nodes) as i64);
    assert_eq!(int_after(&out, "gpus"), gpus);
    assert_eq!(int_after(&out, "tasks"), data_rows(&pods) as i64);
    assert_eq!(int_after(&out, "seed"), 5);
    let (fgd, best) = (out.find(r#""policy":"fgd""#).unwrap(), out.find(r#""policy":"best_fit""#).unwrap());
    assert!(fgd < best, "{out}");
    assert_eq!(out.matches(r#""arrived_load":"#).count(), 2 * 4);
    // The same seed draws the same tasks.
    assert_eq!(gpu_replay(&nodes, &pods, opts).unwrap(), out);
}

#[test]
fn gpu_replay_errors_name_the_field() {
    let (nodes, pods) = (data("gpu/nodes.csv"), data("gpu/pods.csv"));
    let e = gpu_replay(&nodes, &pods, r#"{"policies": "fgd,nope"}"#).unwrap_err();
    assert_eq!(e.code, ErrorCode::Invalid);
    assert_eq!((e.field.as_str(), e.value.as_str()), ("options.policies", "nope"));
    let e = gpu_replay(&nodes, &pods, r#"{"max_lod": 1}"#).unwrap_err();
    assert_eq!(e.field, "options.max_lod");
    let e = gpu_replay(&nodes, &data("gpu/pods_bad_number.csv"), "").unwrap_err();
    assert_eq!(e.field, "pods_csv:3.cpu_milli");
}

#[test]
fn gpu_defrag_moves_the_cheapest_workloads() {
    let problem = data("gpu/defrag_gang.json");
    let out = gpu_defrag(&problem).expect("valid input");
    // w1 and w2 off n0: 1 GPU x (100 + 60) + 1 GPU x (500 + 60) = 720 GPU-seconds.
    assert!(out.contains(r#""kind":"move""#), "{out}");
    assert!(out.contains(r#""cost_gpu_seconds":720"#), "{out}");
    assert!(out.contains(r#""applied":false"#), "{out}");
    let applied = gpu_defrag(&problem.replacen("{", r#"{"apply": true,"#, 1)).expect("valid input");
    assert!(applied.contains(r#"{"name":"gang","node":"n0","gpus":[0,1,2,3]}"#), "{applied}");
    let e = gpu_defrag(&problem.replace(r#""gpus": [1]"#, r#""gpus": [7]"#)).unwrap_err();
    assert_eq!(e.code, ErrorCode::Invalid);
    assert_eq!(e.field, "workloads[1].gpus[0]");
}

#[test]
fn serverless_simulate_reports_each_policy() {
    let (endpoint, trace) = (data("serverless/endpoint.yaml"), data("serverless/trace_small.csv"));
    let out = serverless_simulate(&endpoint, &trace, r#"{"policies": "kpa,ray_serve"}"#).expect("valid input");
    assert_eq!(out.matches(r#""endpoint":"chat""#).count(), 2);
    let (kpa, ray) = (out.find(r#""policy":"kpa""#).unwrap(), out.find(r#""policy":"ray_serve""#).unwrap());
    assert!(kpa < ray, "{out}");
    assert_eq!(int_after(&out, "requests"), data_rows(&trace) as i64);
    let only = serverless_simulate(&endpoint, &trace, "").unwrap();
    assert_eq!(only.matches(r#""policy":"#).count(), 1);
    assert!(only.contains(r#""policy":"queue_depth""#), "{only}");
}

#[test]
fn serverless_simulate_errors_name_the_field() {
    let (endpoint, trace) = (data("serverless/endpoint.yaml"), data("serverless/trace_small.csv"));
    let e = serverless_simulate(&endpoint, &trace, r#"{"policies": ["kpa", "nope"]}"#).unwrap_err();
    assert_eq!(e.code, ErrorCode::Invalid);
    assert_eq!(e.field, "options.policies");
    let bad = endpoint.replace("concurrency_per_worker: 4", "concurrency_per_worker: 0");
    let e = serverless_simulate(&bad, &trace, "").unwrap_err();
    assert_eq!(e.field, "concurrency_per_worker");
}

#[test]
fn gpu_place_mig_repartitions_when_no_free_instance_fits() {
    // One 1g.5gb of seven in use at slice 0: a 3g.20gb goes at slice 4, giving up three.
    let problem = r#"{"nodes": [{"name": "n0", "model": "A100-40GB", "gpus": 1, "mig": [["1g.5gb@0", "1g.5gb@1",
        "1g.5gb@2", "1g.5gb@3", "1g.5gb@4", "1g.5gb@5", "1g.5gb@6"]]}],
        "workloads": [{"name": "w", "node": "n0", "mig": [[0, 0]]}], "request": {"mig_profile": "3g.20gb"}}"#;
    let out = gpu_place_mig(problem).expect("valid input");
    assert_eq!(int_after(&out, "instance"), 4, "{out}");
    assert_eq!(int_after(&out, "dropped"), 3, "{out}");
    let e = gpu_place_mig(r#"{"nodes": [{"name": "n0", "model": "T4", "gpus": 1}], "request": {"num_gpu": 1}}"#).unwrap_err();
    assert_eq!((e.code, e.field.as_str()), (ErrorCode::Invalid, "request.mig_profile"));
}
