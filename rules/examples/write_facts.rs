//! Writes the facts of a C program to a directory, like `agx facts FILE -o DIR`, without
//! the rest of agx (used to refresh fixtures/facts/).

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [file, dir] = args.as_slice() else {
        return Err("usage: write_facts FILE.c DIR".into());
    };
    let program = analysis::load_program(std::path::Path::new(file), &Default::default())?;
    let facts = analysis::facts::extract(&program);
    analysis::facts::write_dir(&facts, std::path::Path::new(dir))?;
    Ok(())
}
