//! cargo run --example validate -- job.json   (prints the normalized job or the error)
fn main() {
    let path = std::env::args().nth(1).expect("usage: validate <job.json>");
    let text = std::fs::read_to_string(&path).expect("readable file");
    match budcore::validate_job(&text) {
        Ok(json) => println!("{json}"),
        Err(e) => {
            eprintln!("{path}: {e} [{:?}]", e.code);
            std::process::exit(2);
        }
    }
}
