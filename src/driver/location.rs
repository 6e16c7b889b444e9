//! The one target type of the CLI: a source location `FILE:LINE`, parsed once (by clap,
//! through [`FromStr`]) and resolved to statements in one place ([`Lines`]), whether the
//! program comes as IR or as a facts directory.

use analysis::facts::{Facts, FileId, StmtId};
use analysis::ir::Program;
use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

/// A source location as the user names it: a file (its name as the line markers give it,
/// or just its final component) and a line (from 1).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Location {
    pub file: String,
    pub line: u32,
}

impl FromStr for Location {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let (file, line) = s
            .rsplit_once(':')
            .ok_or_else(|| format!("`{s}` is not FILE:LINE"))?;
        let line: u32 = line
            .parse()
            .map_err(|_| format!("`{s}`: `{line}` is not a line number"))?;
        if file.is_empty() {
            return Err(format!("`{s}`: no file name before `:`"));
        }
        if line == 0 {
            return Err(format!("`{s}`: lines count from 1"));
        }
        Ok(Location {
            file: file.to_string(),
            line,
        })
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

/// Why a location stands for no statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LocationError {
    /// No file of the program has this name.
    NoFile(Location),
    /// The file has no statement on this line (beyond its end, a comment, a declaration).
    NoStatement(Location),
}

impl fmt::Display for LocationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LocationError::NoFile(l) => {
                write!(f, "{l}: `{}` is not a file of the program", l.file)
            }
            LocationError::NoStatement(l) => write!(f, "{l}: no statement of the program there"),
        }
    }
}

impl std::error::Error for LocationError {}

/// The statements of a program by source line, from its IR or from its facts.
pub struct Lines {
    files: Vec<String>,
    /// `(statement, file, line)` for every statement and terminator.
    stmts: Vec<(StmtId, FileId, u32)>,
    /// The error sites (assertions, `reach_error` calls).
    errors: BTreeSet<StmtId>,
}

impl Lines {
    pub fn of_program(program: &Program) -> Lines {
        let stmts = (0..program.stmt_count())
            .map(|i| {
                let s = StmtId(i as u32);
                let span = program.stmt(s).span();
                (s, span.file, span.line)
            })
            .collect();
        let errors = program.error_sites().iter().map(|t| t.id).collect();
        Lines {
            files: program.files.clone(),
            stmts,
            errors,
        }
    }

    pub fn of_facts(facts: &Facts) -> Lines {
        Lines {
            files: facts.names.files.clone(),
            stmts: facts.stmt_line.clone(),
            errors: facts.error_site.iter().map(|e| e.0).collect(),
        }
    }

    /// A file by a user-given name: an exact match, else a match of the final path
    /// component.
    pub fn find_file(&self, name: &str) -> Option<FileId> {
        let exact = self.files.iter().position(|f| f == name);
        let by_base = || {
            let base = std::path::Path::new(name).file_name()?;
            self.files
                .iter()
                .position(|f| std::path::Path::new(f).file_name() == Some(base))
        };
        exact.or_else(by_base).map(|i| FileId(i as u32))
    }

    /// Every statement on the location's line (in id order); an error when the file is
    /// not the program's or the line has none.
    pub fn statements(&self, loc: &Location) -> Result<Vec<StmtId>, LocationError> {
        let file = self
            .find_file(&loc.file)
            .ok_or_else(|| LocationError::NoFile(loc.clone()))?;
        let mut on_line: Vec<StmtId> = self
            .stmts
            .iter()
            .filter(|&&(_, f, l)| f == file && l == loc.line)
            .map(|s| s.0)
            .collect();
        on_line.sort();
        if on_line.is_empty() {
            return Err(LocationError::NoStatement(loc.clone()));
        }
        Ok(on_line)
    }

    /// Whether a statement is an error site (an assertion or a `reach_error` call).
    pub fn is_error_site(&self, s: StmtId) -> bool {
        self.errors.contains(&s)
    }

    /// What a location stands for as a target: its error sites if it has any (the
    /// assertion itself), else every statement on the line.
    pub fn target(&self, loc: &Location) -> Result<Vec<StmtId>, LocationError> {
        let on_line = self.statements(loc)?;
        let errors: Vec<StmtId> = on_line
            .iter()
            .copied()
            .filter(|&s| self.is_error_site(s))
            .collect();
        Ok(if errors.is_empty() { on_line } else { errors })
    }

    /// The location of a statement, with the file named as the program names it.
    pub fn location_of(&self, s: StmtId) -> Option<Location> {
        self.stmts
            .iter()
            .find(|t| t.0 == s)
            .map(|&(_, f, line)| Location {
                file: self.files[f.index()].clone(),
                line,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_parse_once_with_clear_errors() {
        let l: Location = "dir/a.c:12".parse().unwrap();
        assert_eq!((l.file.as_str(), l.line), ("dir/a.c", 12));
        assert_eq!(l.to_string(), "dir/a.c:12");
        // A colon in the file name: the last one separates the line.
        assert_eq!("c:/x.c:3".parse::<Location>().unwrap().file, "c:/x.c");
        assert_eq!(
            "a.c".parse::<Location>().unwrap_err(),
            "`a.c` is not FILE:LINE"
        );
        assert_eq!(
            "a.c:x".parse::<Location>().unwrap_err(),
            "`a.c:x`: `x` is not a line number"
        );
        assert!("a.c:0".parse::<Location>().is_err());
        assert!(":3".parse::<Location>().is_err());
        assert!("a.c:-1".parse::<Location>().is_err());
    }

    fn lines() -> Lines {
        Lines {
            files: vec!["/tmp/dir/main.c".into(), "/usr/include/x.h".into()],
            stmts: vec![
                (StmtId(0), FileId(0), 3),
                (StmtId(2), FileId(0), 5),
                (StmtId(1), FileId(0), 5),
                (StmtId(3), FileId(1), 5),
            ],
            errors: BTreeSet::from([StmtId(2)]),
        }
    }

    #[test]
    fn files_match_exactly_or_by_final_component() {
        let l = lines();
        assert_eq!(l.find_file("/tmp/dir/main.c"), Some(FileId(0)));
        assert_eq!(l.find_file("main.c"), Some(FileId(0)));
        assert_eq!(l.find_file("other/main.c"), Some(FileId(0)));
        assert_eq!(l.find_file("x.h"), Some(FileId(1)));
        assert_eq!(l.find_file("y.c"), None);
    }

    #[test]
    fn a_location_resolves_to_its_statements_or_says_why_not() {
        let l = lines();
        let at = |s: &str| s.parse::<Location>().unwrap();
        assert_eq!(
            l.statements(&at("main.c:5")),
            Ok(vec![StmtId(1), StmtId(2)])
        );
        assert_eq!(l.target(&at("main.c:5")), Ok(vec![StmtId(2)]));
        assert_eq!(l.target(&at("main.c:3")), Ok(vec![StmtId(0)]));
        assert_eq!(
            l.statements(&at("main.c:99999")),
            Err(LocationError::NoStatement(at("main.c:99999")))
        );
        assert_eq!(
            l.statements(&at("nope.c:3")).unwrap_err().to_string(),
            "nope.c:3: `nope.c` is not a file of the program"
        );
        assert_eq!(
            l.statements(&at("main.c:4")).unwrap_err().to_string(),
            "main.c:4: no statement of the program there"
        );
        assert_eq!(l.location_of(StmtId(3)), Some(at("/usr/include/x.h:5")));
    }
}
