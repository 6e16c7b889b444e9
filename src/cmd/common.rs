//! Options shared by the subcommands that read a C program.

use crate::driver::Location;
use analysis::ir::DataModel;
use analysis::{FrontendOptions, Program};
use anyhow::{Context, Result};
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::PathBuf;
use std::rc::Rc;
use std::time::Duration;

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

/// The targets of `agx hunt` and `agx slice`.
#[derive(clap::Args, Clone, Debug)]
pub struct TargetArgs {
    /// A target location FILE:LINE (repeatable); a line with no statement there is an
    /// error. In hunt, repeated locations make one goal: a distinct thread at each at once.
    #[arg(long = "target", value_name = "FILE:LINE")]
    pub targets: Vec<Location>,
    /// Every assertion and `reach_error()` call is a target.
    #[arg(long)]
    pub assertions: bool,
    /// Every result of a SARIF 2.1.0 log (static warnings) is a target.
    #[arg(long, value_name = "FILE")]
    pub sarif: Option<PathBuf>,
}

impl TargetArgs {
    /// The results of the `--sarif` log (none without it).
    pub fn sarif_targets(&self) -> Result<Vec<analysis::sarif::SarifTarget>> {
        let Some(path) = &self.sarif else {
            return Ok(Vec::new());
        };
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        analysis::sarif::read_targets(&text).with_context(|| format!("{}", path.display()))
    }
}

/// `--format` of the commands that print text or one JSON value.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextOrJson {
    Text,
    Json,
}

/// Reads line `line` of `file` (for showing source beside IR and traces); the files of
/// agx's C library model are read from the model built into agx. Each file is
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
                let text = match analysis::frontend::libc::model_source(file) {
                    Some(model) => model.to_string(),
                    None => std::fs::read_to_string(file).ok()?,
                };
                Some(text.lines().map(str::to_string).collect())
            })
            .clone()
    })?;
    lines.get(line.checked_sub(1)? as usize).cloned()
}

/// The largest time limit any command accepts, in seconds (1,000,000 s: about 11.6 days).
pub const MAX_SECONDS: f64 = 1_000_000.0;

/// A time limit in seconds, as every command's `--timeout` takes it: a finite number more
/// than 0 and at most [`MAX_SECONDS`]; fractions are allowed (`0.5`). `0`, negative
/// numbers, `inf` and `nan` are rejected when the arguments are parsed.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub struct Seconds(f64);

impl Seconds {
    pub fn new(secs: f64) -> Result<Self, String> {
        if !secs.is_finite() {
            Err("not a finite number of seconds".into())
        } else if secs <= 0.0 {
            Err("must be more than 0 seconds".into())
        } else if secs > MAX_SECONDS {
            Err(format!(
                "must be at most {MAX_SECONDS} seconds (about 11.6 days)"
            ))
        } else {
            Ok(Seconds(secs))
        }
    }

    pub fn get(self) -> f64 {
        self.0
    }

    pub fn duration(self) -> Duration {
        Duration::from_secs_f64(self.0)
    }
}

impl std::str::FromStr for Seconds {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let secs: f64 = s
            .trim()
            .parse()
            .map_err(|_| "not a number of seconds".to_string())?;
        Seconds::new(secs)
    }
}

impl std::fmt::Display for Seconds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_accept_positive_finite_values_up_to_the_maximum() {
        assert_eq!("60".parse::<Seconds>().map(Seconds::get), Ok(60.0));
        assert_eq!("0.5".parse::<Seconds>().map(Seconds::get), Ok(0.5));
        assert_eq!("1e6".parse::<Seconds>().map(Seconds::get), Ok(MAX_SECONDS));
        for bad in [
            "0", "-1", "1e19", "inf", "-inf", "nan", "NaN", "", "ten", "1000001",
        ] {
            assert!(bad.parse::<Seconds>().is_err(), "{bad} accepted");
        }
        assert_eq!(Seconds::new(60.0).map(|s| s.to_string()), Ok("60".into()));
        assert_eq!(
            Seconds::new(2.5).map(Seconds::duration),
            Ok(Duration::from_millis(2500))
        );
    }
}
