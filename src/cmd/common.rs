//! Options shared by the subcommands that read a C program.

use analysis::ir::DataModel;
use analysis::{FrontendOptions, Program};
use anyhow::Result;
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::PathBuf;
use std::rc::Rc;

/// How to read the input program.
#[derive(clap::Args, Clone, Debug)]
pub struct InputArgs {
    /// The C program: a `.c` file (preprocessed with `gcc -E`) or a preprocessed `.i`.
    pub file: PathBuf,
    /// Add a directory to the preprocessor's include path.
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// Define a preprocessor macro (`NAME` or `NAME=VALUE`).
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub define: Vec<String>,
    /// Integer widths of C types.
    #[arg(long, default_value = "ilp32", value_name = "ilp32|lp64")]
    pub data_model: DataModel,
}

impl InputArgs {
    pub fn options(&self) -> FrontendOptions {
        FrontendOptions {
            include_dirs: self.include.clone(),
            defines: self.define.clone(),
            data_model: self.data_model,
        }
    }

    /// Reads and lowers the program, printing the front end's warnings to stderr.
    pub fn load(&self) -> Result<Program> {
        let program = analysis::load_program(&self.file, &self.options())?;
        for w in &program.warnings {
            eprintln!("warning: {}: {}", program.location(w.span), w.message);
        }
        Ok(program)
    }
}

/// Reads line `line` of `file` (for showing source beside IR and traces). Each file is
/// read and split into lines once per thread (reading it per call made `agx ir`
/// quadratic in the program's size).
pub fn source_line(file: &str, line: u32) -> Option<String> {
    thread_local! {
        static FILES: RefCell<HashMap<String, Option<Rc<[String]>>>> =
            RefCell::new(HashMap::new());
    }
    let lines = FILES.with(|files| {
        files
            .borrow_mut()
            .entry(file.to_string())
            .or_insert_with(|| {
                let text = std::fs::read_to_string(file).ok()?;
                Some(text.lines().map(str::to_string).collect())
            })
            .clone()
    })?;
    lines.get(line.checked_sub(1)? as usize).cloned()
}
