use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use budcore::{plan_pipeline, run_pipeline, ErrorCode, Functions, StepError};

fn rag_pipeline() -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/specs/rag-pipeline.json");
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// prep (TRANSFORM) -> score (FUNCTION "score", one retry) -> report (TRANSFORM).
const SCORED: &str = r#"{"pipeline": {"id": "p", "name": "scored", "parameters": {"base": 10}},
 "steps": [
  {"id": "prep", "name": "prep", "step_type": "TRANSFORM", "depends_on": [],
   "config": {"outputs": {"n": "{{ params.base }}"}}},
  {"id": "score", "name": "score", "step_type": "FUNCTION", "depends_on": ["prep"], "retry": 1,
   "config": {"function": "score", "args": {"n": "{{ steps.prep.outputs.n }}"}}},
  {"id": "report", "name": "report", "step_type": "TRANSFORM", "depends_on": ["score"],
   "config": {"outputs": {"total": "{{ steps.score.outputs.total }}"}}}]}"#;

/// The integer after `"key":` in `json`, searching from the first occurrence of `after`.
fn int_after(json: &str, after: &str, key: &str) -> i64 {
    let from = json
        .find(after)
        .unwrap_or_else(|| panic!("{after} missing in {json}"));
    let pat = format!("\"{key}\":");
    let at = json[from..]
        .find(&pat)
        .unwrap_or_else(|| panic!("{key} missing in {json}"));
    let rest = json[from + at + pat.len()..].trim_start();
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '-'))
        .unwrap();
    rest[..end].parse().unwrap()
}

#[test]
fn plans_the_rag_pipeline() {
    let plan = plan_pipeline(&rag_pipeline()).expect("valid pipeline");
    assert!(plan.starts_with(r#"{"valid":true,"order":["#), "{plan}");
    assert!(
        plan.contains(r#""job_steps":["step-2","step-3","step-4""#),
        "{plan}"
    );
    assert!(plan.contains(r#""critical_path_seconds":"#), "{plan}");
}

#[test]
fn an_invalid_pipeline_reports_every_problem() {
    let doc = r#"{"pipeline": {"id": "p", "name": "p"}, "steps": [
      {"id": "a", "name": "a", "step_type": "JOB", "depends_on": ["b"], "config": {}},
      {"id": "b", "name": "b", "step_type": "JOB", "depends_on": ["a", "ghost"], "config": {}}]}"#;
    let err = plan_pipeline(doc).unwrap_err();
    assert_eq!(err.error.code, ErrorCode::Invalid);
    assert!(
        err.report.starts_with(r#"{"valid":false,"errors":["#),
        "{}",
        err.report
    );
    assert!(err.report.contains(r#""code":"cycle""#), "{}", err.report);
    assert!(
        err.report.contains(r#""code":"unknown_dependency""#),
        "{}",
        err.report
    );
    assert!(!err.error.field.is_empty(), "{:?}", err.error);
}

#[test]
fn a_document_that_does_not_parse_names_where() {
    let err = plan_pipeline("{\"pipeline\": ").unwrap_err();
    assert_eq!(err.error.code, ErrorCode::Invalid);
    assert!(!err.error.message.is_empty());
}

#[test]
fn function_steps_call_rust_closures() {
    let calls = Arc::new(AtomicUsize::new(0));
    let seen = calls.clone();
    let mut functions = Functions::new().unwrap();
    functions
        .add("score", move |args, attempt, step| {
            seen.fetch_add(1, Ordering::SeqCst);
            assert_eq!(step, "score");
            if attempt == 1 {
                return Err("warming up".into());
            }
            let n = int_after(args, "{", "n");
            Ok(format!(r#"{{"total": {}}}"#, 2 * n))
        })
        .unwrap();
    assert_eq!(functions.len(), 1);
    let report = run_pipeline(SCORED, "", Some(&functions)).unwrap();
    assert!(report.contains(r#""status":"completed""#), "{report}");
    assert_eq!(int_after(&report, r#""report":{"total""#, "total"), 20);
    assert_eq!(calls.load(Ordering::SeqCst), 2, "one failure, one retry");
    assert!(
        report.contains("warming up"),
        "the failed attempt's message is kept: {report}"
    );
}

#[test]
fn a_panicking_closure_fails_the_step_instead_of_unwinding_into_c() {
    let mut functions = Functions::new().unwrap();
    functions.add("score", |_, _, _| panic!("boom")).unwrap();
    let report = run_pipeline(SCORED, "", Some(&functions)).unwrap();
    assert!(report.contains(r#""status":"failed""#), "{report}");
    assert!(report.contains("function panicked: boom"), "{report}");
}

#[test]
fn a_closure_can_abort_the_whole_run_and_the_registry_drops_closures() {
    let calls = Arc::new(AtomicUsize::new(0));
    let seen = calls.clone();
    let dropped = Arc::new(AtomicUsize::new(0));
    struct OnDrop(Arc<AtomicUsize>);
    impl Drop for OnDrop {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
    let guard = OnDrop(dropped.clone());
    let mut functions = Functions::new().unwrap();
    functions
        .add("score", move |_, _, _| {
            let _keep = &guard;
            seen.fetch_add(1, Ordering::SeqCst);
            Err(StepError::Abort("operator pressed stop".into()))
        })
        .unwrap();
    let err = run_pipeline(SCORED, "", Some(&functions)).unwrap_err();
    assert_eq!(err.code, ErrorCode::User);
    assert_eq!(err.message, "operator pressed stop");
    assert_eq!(err.field, "score");
    assert_eq!(calls.load(Ordering::SeqCst), 1, "no retry after an abort");
    assert_eq!(dropped.load(Ordering::SeqCst), 0);
    drop(functions);
    assert_eq!(dropped.load(Ordering::SeqCst), 1, "freeing the registry drops the closure");
}

#[test]
fn names_are_unique_and_options_are_checked() {
    let mut functions = Functions::new().unwrap();
    functions.add("score", |_, _, _| Ok("{}".into())).unwrap();
    let dup = functions
        .add("score", |_, _, _| Ok("{}".into()))
        .unwrap_err();
    assert_eq!(dup.code, ErrorCode::Exists);

    let bad = run_pipeline(SCORED, r#"{"bogus": 1}"#, Some(&functions)).unwrap_err();
    assert_eq!(bad.code, ErrorCode::Invalid);
    assert_eq!(bad.field, "options.bogus");

    // Without functions a FUNCTION step cannot run; the run itself still reports.
    let report = run_pipeline(SCORED, r#"{"params": {"base": 4}}"#, None).unwrap();
    assert!(report.contains(r#""status":"failed""#), "{report}");
}

#[test]
fn one_registry_serves_concurrent_runs() {
    let mut functions = Functions::new().unwrap();
    functions
        .add("score", |args, _, _| {
            Ok(format!(r#"{{"total": {}}}"#, 2 * int_after(args, "{", "n")))
        })
        .unwrap();
    let functions = Arc::new(functions);
    let handles: Vec<_> = (0..4)
        .map(|i| {
            let f = functions.clone();
            std::thread::spawn(move || {
                let opts = format!(r#"{{"params": {{"base": {i}}}}}"#);
                let report = run_pipeline(SCORED, &opts, Some(&f)).unwrap();
                int_after(&report, r#""report":{"total""#, "total")
            })
        })
        .collect();
    let totals: Vec<i64> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(totals, vec![0, 2, 4, 6]);
}
