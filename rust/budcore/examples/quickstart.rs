//! Quick start in Rust: an embedded platform in a directory, one job, the virtual clock run until
//! idle, the job read back. Run: cargo run --example quickstart (from rust/).
use budcore::{Caller, Platform};

const JOB: &str = r#"{"name": "quickstart", "job_type": "batch", "deployment_type": "docker",
  "gpu_type": "nvidia-a100-80gb", "gpu_count": 1, "estimated_duration_seconds": 600}"#;

/// The first string value of `key` in the library's compact JSON.
fn text_of<'a>(json: &'a str, key: &str) -> &'a str {
    let start = json.find(&format!("\"{key}\":\"")).expect(key) + key.len() + 4;
    &json[start..start + json[start..].find('"').expect("a closing quote")]
}

fn main() -> Result<(), budcore::Error> {
    let dir = std::env::temp_dir().join(format!("budcore-quickstart-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a directory");
    let p = Platform::open_embedded(dir.to_str().expect("a UTF-8 path"))?;
    let me = Caller::tenant("3f6b2a1e-8c4d-4e5f-9a0b-1c2d3e4f5a6b");
    let submitted = p.submit(&me, JOB, None)?;
    let id = text_of(&submitted, "id"); // the record's first "id" is the job's
    p.run(None)?; // None: until nothing is scheduled
    let stored = p.get(&me, id)?;
    println!("job {id}: {}", text_of(&stored, "status"));
    Ok(())
}
