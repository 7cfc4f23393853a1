use std::path::PathBuf;

use budcore::{validate_job, validate_job_bytes, ErrorCode};

fn spec(name: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/specs/jobs")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The value of `"key":` in compact JSON output, up to the next ',' or '}'.
fn json_field<'a>(json: &'a str, key: &str) -> &'a str {
    let pat = format!("\"{key}\":");
    let start = json
        .find(&pat)
        .unwrap_or_else(|| panic!("{key} missing in {json}"))
        + pat.len();
    let rest = &json[start..];
    &rest[..rest.find([',', '}']).unwrap()]
}

#[test]
fn good_job_is_normalized() {
    let out = validate_job(&spec("llm-endpoint.json")).expect("valid job");
    assert_eq!(json_field(&out, "name"), "\"llama-70b-endpoint\"");
    assert_eq!(json_field(&out, "job_type"), "\"service\"");
    assert_eq!(json_field(&out, "priority"), "\"high\"");
    assert_eq!(json_field(&out, "gpu_count"), "2");
    assert_eq!(json_field(&out, "status"), "\"pending\"");
    // Normalizing twice changes nothing.
    assert_eq!(validate_job(&out).unwrap(), out);
}

#[test]
fn minimal_job_gets_defaults() {
    let out =
        validate_job(r#"{"name":"tiny","job_type":"batch","deployment_type":"docker"}"#).unwrap();
    assert_eq!(json_field(&out, "max_retries"), "3");
    assert_eq!(json_field(&out, "cpu_cores"), "1");
    assert_eq!(json_field(&out, "currency"), "\"USD\"");
}

#[test]
fn negative_gpu_count_names_the_field() {
    let err = validate_job(
        r#"{"name":"x","job_type":"batch","deployment_type":"docker","gpu_count":-1}"#,
    )
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::Invalid);
    assert_eq!(err.field, "gpu_count");
    assert_eq!(err.value, "-1");
    assert!(!err.message.is_empty());
    assert!(err.to_string().starts_with("gpu_count: "), "{err}");
}

#[test]
fn unknown_key_and_bad_enum_are_invalid() {
    let err =
        validate_job(r#"{"name":"x","job_type":"batch","deployment_type":"docker","gpu_cont":1}"#)
            .unwrap_err();
    assert_eq!(
        (err.code, err.field.as_str()),
        (ErrorCode::Invalid, "gpu_cont")
    );
    let err =
        validate_job(r#"{"name":"x","job_type":"cron","deployment_type":"docker"}"#).unwrap_err();
    assert_eq!(
        (err.code, err.field.as_str()),
        (ErrorCode::Invalid, "job_type")
    );
}

#[test]
fn malformed_json_is_invalid() {
    let err = validate_job("{\"name\": ").unwrap_err();
    assert_eq!(err.code, ErrorCode::Invalid);
}

#[test]
fn invalid_utf8_is_rejected() {
    let err = validate_job_bytes(b"{\"name\":\"\xff\"}").unwrap_err();
    assert_eq!((err.code, err.field.as_str()), (ErrorCode::Invalid, "json"));
}

#[test]
fn error_is_cleared_after_it_is_read() {
    assert!(validate_job("[]").is_err());
    let last = unsafe { &*budcore::sys::budcore_error_last() };
    assert_eq!(last.code, budcore::sys::BUDCORE_OK);
}

#[test]
fn errors_are_per_thread() {
    let handles: Vec<_> = (0..8)
        .map(|i| {
            std::thread::spawn(move || {
                let doc = format!(
                    r#"{{"name":"job-{i}","job_type":"batch","deployment_type":"docker","gpu_count":{}}}"#,
                    if i % 2 == 0 { -i - 1 } else { i }
                );
                for _ in 0..50 {
                    match validate_job(&doc) {
                        Ok(out) => assert_eq!(i % 2, 1, "{out}"),
                        Err(e) => {
                            assert_eq!(i % 2, 0);
                            assert_eq!(e.value, (-i - 1).to_string());
                        }
                    }
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

#[test]
fn version_is_reported() {
    let header = budcore::sys::BUDCORE_VERSION_STRING;
    assert_eq!(budcore::version().as_bytes(), &header[..header.len() - 1]);
}

#[test]
fn validate_job_all_reports_every_problem() {
    let bad = r#"{"name": "Bad_Name", "job_type": "batch", "deployment_type": "docker",
      "tenant_id": "00000000-0000-4000-8000-000000000001", "gpu_count": -1, "retry_count": 5, "max_retries": 1}"#;
    let invalid = budcore::validate_job_all(bad).unwrap_err();
    assert_eq!((invalid.error.code, invalid.error.field.as_str()), (ErrorCode::Invalid, "name"));
    for path in ["\"path\":\"name\"", "\"path\":\"gpu_count\"", "\"path\":\"retry_count\""] {
        assert!(invalid.report.contains(path), "{path} missing in {}", invalid.report);
    }
    // Fields that do not decode are listed too, beside the rules the others break; the first
    // problem is validate_job's error.
    let mixed = r#"{"name": "ok", "deployment_type": "DOCKER", "gpu_count": -1, "cpu_cores": -2, "priority": "ultra"}"#;
    let invalid = budcore::validate_job_all(mixed).unwrap_err();
    assert_eq!(invalid.error, validate_job(mixed).unwrap_err());
    assert_eq!(invalid.error.field, "job_type");
    let paths: Vec<&str> = invalid
        .report
        .split("\"path\":\"")
        .skip(1)
        .map(|rest| &rest[..rest.find('"').unwrap()])
        .collect();
    assert_eq!(paths, ["job_type", "priority", "gpu_count", "cpu_cores"], "{}", invalid.report);
    // Text that is not JSON: its one problem, in the error and the report.
    let unparsable = budcore::validate_job_all(r#"{"name": "#).unwrap_err();
    assert_eq!(unparsable.report.matches("\"path\":").count(), 1);
    let good = budcore::validate_job_all(&spec("batch-embeddings.json")).unwrap();
    assert_eq!(good, validate_job(&spec("batch-embeddings.json")).unwrap());
}

#[test]
fn the_error_carries_every_problem() {
    let mixed = r#"{"name": "ok", "job_type": "batch", "deployment_type": "DOCKER", "spec": {"image": "x/y"},
      "gpu_count": -1, "cpu_cores": -2, "priority": "ultra"}"#;
    let err = validate_job(mixed).unwrap_err();
    // The first stays the error it always was; the others follow, each with field, value and why.
    assert_eq!((err.field.as_str(), err.value.as_str()), ("priority", "ultra"));
    let problems: Vec<(String, String, String)> =
        err.problems().into_iter().map(|p| (p.field, p.value, p.message)).collect();
    assert_eq!(problems[1..],
        [("gpu_count".into(), "-1".into(), "must not be negative".into()),
         ("cpu_cores".into(), "-2".into(), "must not be negative".into())]);
    assert_eq!(problems[0].0, "priority");
    assert!(err.problems()[0].others.is_empty());
    // One problem: no others.
    let one = validate_job(r#"{"name": "ok", "job_type": "batch", "deployment_type": "docker", "gpu_count": -1}"#)
        .unwrap_err();
    assert!(one.others.is_empty() && one.problems().len() == 1);
}
