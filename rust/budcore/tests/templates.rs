//! Templates from Rust: one-shot and compiled renders, failures with kind, line and column.

use std::sync::Arc;

use budcore::{render_template, ErrorCode, Template};

#[test]
fn renders_text_and_native_values() {
    assert_eq!(render_template("Hi {{ name }}", r#"{"name": "x"}"#, false).unwrap(), "Hi x");
    assert_eq!(render_template("{{ cfg }}", r#"{"cfg": {"a": 1}}"#, true).unwrap(), r#"{"a":1}"#);
    assert_eq!(render_template("{{ 1 + 1 }}", "", true).unwrap(), "2");
}

#[test]
fn failures_carry_kind_line_and_column() {
    let err = render_template("line\n  {{ missing }}", "{}", false).unwrap_err();
    assert_eq!(err.error.code, ErrorCode::Invalid);
    assert_eq!((err.kind.as_str(), err.line), ("UndefinedError", 2));
    assert!(err.column > 0);
    let err = Template::compile("{% if x %}").err().expect("a syntax error");
    assert_eq!(err.kind, "TemplateSyntaxError");
    let err = render_template("{{ x }}", "[1]", false).unwrap_err();
    assert_eq!((err.kind.as_str(), err.error.field.as_str()), ("", "context"));
    let err = render_template("{{ range(10000000) | list }}", "", false).unwrap_err();
    assert_eq!((err.error.code, err.kind.as_str()), (ErrorCode::Security, "SecurityError"));
}

#[test]
fn a_compiled_template_serves_threads() {
    let t = Arc::new(Template::compile("{{ name }}:{{ n * 2 }}").unwrap());
    let handles: Vec<_> = (0..4)
        .map(|i| {
            let t = t.clone();
            std::thread::spawn(move || {
                for n in 0..20 {
                    let ctx = format!(r#"{{"name": "t{i}", "n": {n}}}"#);
                    assert_eq!(t.render(&ctx, false).unwrap(), format!("t{i}:{}", 2 * n));
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(t.render("{}", false).unwrap_err().kind, "UndefinedError");
}
