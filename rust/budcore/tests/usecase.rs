use std::path::PathBuf;
use std::sync::Arc;

use budcore::{ErrorCode, UsecaseRegistry};

fn shipped(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/usecases")
        .join(rel)
}

#[test]
fn renders_a_shipped_template() {
    let reg = UsecaseRegistry::builtin().unwrap();
    assert!(reg.list().unwrap().contains("\"simple-rag-v1\""));
    let out = reg
        .render(
            "simple-rag-v1",
            r#"{"parameters": {"model_id": "m"}, "name": "demo"}"#,
        )
        .unwrap();
    assert!(out.starts_with("{\"valid\":true"), "{out}");
    assert!(out.contains("{{ steps.llm.outputs.url }}"), "{out}");
    assert!(reg
        .show("enterprise-rag-v1")
        .unwrap()
        .contains("\"reranker-endpoint\""));
    assert!(reg.components().unwrap().contains("\"vllm-endpoint\""));
}

#[test]
fn invalid_parameters_report_every_problem() {
    let reg = UsecaseRegistry::builtin().unwrap();
    let err = reg
        .render("simple-rag-v1", r#"{"parameters": {"gpu_type": "tpu"}}"#)
        .unwrap_err();
    assert_eq!(err.error.code, ErrorCode::Invalid);
    assert_eq!(err.error.field, "parameters.model_id");
    assert!(
        err.report.contains("\"missing_parameter\""),
        "{}",
        err.report
    );
    assert!(
        err.report.contains("\"parameters.gpu_type\""),
        "{}",
        err.report
    );
    let missing = reg.render("nope", "").unwrap_err();
    assert_eq!(missing.error.code, ErrorCode::NotFound);
    assert!(missing.report.is_empty());
    assert_eq!(reg.show("nope").unwrap_err().code, ErrorCode::NotFound);
}

#[test]
fn own_components_and_templates() {
    let mut reg = UsecaseRegistry::new().unwrap();
    assert!(reg.list().unwrap().contains("\"templates\":[]"));
    reg.add_components(
        r#"[{"id": "api", "name": "API", "description": "", "category": "service", "version": "1",
             "deployment_type": "docker", "image": "api", "outputs": ["url"]}]"#,
    )
    .unwrap();
    let bad = reg
        .add_components(r#"{"id": "x", "name": "X", "description": "", "category": "service", "version": "1", "deployment_type": "docker", "image": "x", "outputz": []}"#)
        .unwrap_err();
    assert_eq!(bad.field, "outputz");
    reg.add_template(
        "id: one\nname: One\ndescription: d\ncategory: demo\nversion: '1'\ncomplexity: simple\ncomponents: [{id: a, component_ref: api}]\n",
    )
    .unwrap();
    assert!(reg
        .render("one", "")
        .unwrap()
        .contains("\"component_ref\":\"api\""));
    reg.load(Some(&shipped("components")), Some(&shipped("templates")))
        .unwrap();
    assert!(reg.list().unwrap().contains("\"chatbot-memory-v1\""));
    // A path that cannot be read: the one error every surface gives for it.
    let nope = shipped("nope");
    let err = reg.load(Some(&nope), None).unwrap_err();
    assert_eq!(err.code, ErrorCode::Io);
    assert_eq!(err.field, "path");
    let shown = nope.to_str().unwrap();
    assert_eq!(err.value, shown);
    assert_eq!(
        err.message,
        format!("cannot open file '{shown}': No such file or directory")
    );
}

#[test]
fn renders_from_threads() {
    let reg = Arc::new(UsecaseRegistry::builtin().unwrap());
    let handles: Vec<_> = (0..4)
        .map(|i| {
            let reg = Arc::clone(&reg);
            std::thread::spawn(move || {
                let req = format!(r#"{{"parameters": {{"model_id": "m{i}"}}}}"#);
                reg.render("simple-agent-v1", &req).unwrap()
            })
        })
        .collect();
    for (i, h) in handles.into_iter().enumerate() {
        assert!(h
            .join()
            .unwrap()
            .contains(&format!("\"model_id\":\"m{i}\"")));
    }
}
