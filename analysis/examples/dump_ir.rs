//! Prints the IR of a C file without the CLI: `cargo run -p agx-analysis --example dump_ir F`.

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: dump_ir FILE");
        std::process::exit(2);
    };
    let opts = analysis::FrontendOptions::default();
    match analysis::load_program(std::path::Path::new(&path), &opts) {
        Ok(p) => print!("{}", analysis::ir::render_program(&p, &|_, _| None)),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    }
}
