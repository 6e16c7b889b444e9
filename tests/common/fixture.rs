//! The `// agx-*` directives of a fixture (fixtures/README.md defines them) and the check
//! of one `agx run` against one case.

use super::process::Finished;

/// The outcome a case declares with `agx-expect`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expect {
    Ok,
    /// A violation of the named kind (`assertion`, `deadlock`, ...).
    Violation(String),
    Error,
}

impl Expect {
    /// The exit code of `agx run` for this outcome.
    pub fn exit_code(&self) -> i32 {
        match self {
            Expect::Ok => 0,
            Expect::Violation(_) => 1,
            Expect::Error => 2,
        }
    }
}

/// One run of `agx run` and what it must produce.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    /// Extra arguments after the file name.
    pub args: Vec<String>,
    pub expect: Expect,
    /// Line of the violation or rejection, if declared.
    pub line: Option<u32>,
    /// The exact expected stdout lines (each printed with a final `\n`).
    pub stdout: Vec<String>,
    pub stderr_contains: Vec<String>,
}

impl Case {
    pub fn expected_stdout(&self) -> String {
        self.stdout.iter().map(|l| format!("{l}\n")).collect()
    }

    /// A short name for messages: the arguments, or "default" for none.
    pub fn label(&self) -> String {
        if self.args.is_empty() {
            "no extra args".to_string()
        } else {
            self.args.join(" ")
        }
    }
}

/// The directives of one fixture file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Directives {
    pub cases: Vec<Case>,
    /// `agx-gcc: skip REASON`.
    pub gcc_skip: Option<String>,
}

const PREFIX: &str = "// agx-";

/// True if the text has any `// agx-` directive line.
pub fn has_directives(text: &str) -> bool {
    text.lines().any(|l| l.starts_with(PREFIX))
}

/// A case being read: `expect` stays `None` until its `agx-expect` line.
#[derive(Default)]
struct PartialCase {
    args: Vec<String>,
    expect: Option<Expect>,
    line: Option<u32>,
    stdout: Vec<String>,
    stderr_contains: Vec<String>,
    /// 1-based line of the directive that opened the case.
    opened_at: usize,
}

/// Reads every directive of a fixture. Errors name the offending line (1-based).
pub fn parse(text: &str) -> Result<Directives, String> {
    let mut gcc_skip = None;
    let mut explicit_runs = false;
    let mut cases: Vec<PartialCase> = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        let Some(rest) = line.strip_prefix(PREFIX) else {
            continue;
        };
        let Some((name, raw_value)) = rest.split_once(':') else {
            return Err(format!("line {number}: directive without `:`: {line}"));
        };
        let value = raw_value.trim();
        if name == "gcc" {
            let reason = value
                .strip_prefix("skip")
                .ok_or_else(|| format!("line {number}: agx-gcc takes `skip REASON`"))?;
            gcc_skip = Some(reason.trim().to_string());
            continue;
        }
        // `agx verify` cases, read by tests/verify.rs and `agx bench`, not by `agx run`.
        if name == "verify" {
            continue;
        }
        if name == "run" {
            explicit_runs = true;
            cases.push(PartialCase {
                args: value.split_whitespace().map(str::to_string).collect(),
                opened_at: number,
                ..PartialCase::default()
            });
            continue;
        }
        if cases.is_empty() {
            if explicit_runs || text.lines().any(|l| l.starts_with("// agx-run:")) {
                return Err(format!(
                    "line {number}: `agx-{name}` before the first `agx-run` of the file"
                ));
            }
            cases.push(PartialCase {
                opened_at: number,
                ..PartialCase::default()
            });
        }
        let case = cases.last_mut().expect("a case was just ensured");
        apply(case, name, value, raw_value, number)?;
    }
    let cases = cases
        .into_iter()
        .map(|c| {
            let expect = c.expect.ok_or_else(|| {
                format!("case opened at line {} has no `agx-expect`", c.opened_at)
            })?;
            Ok(Case {
                args: c.args,
                expect,
                line: c.line,
                stdout: c.stdout,
                stderr_contains: c.stderr_contains,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(Directives { cases, gcc_skip })
}

fn apply(
    case: &mut PartialCase,
    name: &str,
    value: &str,
    raw_value: &str,
    number: usize,
) -> Result<(), String> {
    match name {
        "expect" => {
            if case.expect.is_some() {
                return Err(format!("line {number}: a second `agx-expect` in one case"));
            }
            case.expect = Some(parse_expect(value).map_err(|e| format!("line {number}: {e}"))?);
        }
        "expect-line" => {
            let n = value
                .parse()
                .map_err(|_| format!("line {number}: `agx-expect-line` needs a line number"))?;
            case.line = Some(n);
        }
        // Only the one space after the colon is syntax: the rest is the output line.
        "stdout" => case
            .stdout
            .push(raw_value.strip_prefix(' ').unwrap_or(raw_value).to_string()),
        "stderr-contains" => case.stderr_contains.push(value.to_string()),
        other => return Err(format!("line {number}: unknown directive `agx-{other}`")),
    }
    Ok(())
}

/// `ok`, `error`, or `violation KIND` where KIND may have several words
/// (`null dereference`).
fn parse_expect(value: &str) -> Result<Expect, String> {
    let words: Vec<&str> = value.split_whitespace().collect();
    match words.as_slice() {
        ["ok"] => Ok(Expect::Ok),
        ["error"] => Ok(Expect::Error),
        ["violation", kind @ ..] if !kind.is_empty() => Ok(Expect::Violation(kind.join(" "))),
        _ => Err(format!(
            "bad `agx-expect: {value}` (ok | violation KIND | error)"
        )),
    }
}

/// True if `text` names `file_name:line` (the file name possibly after a directory, the
/// line not followed by another digit).
pub fn names_location(text: &str, file_name: &str, line: u32) -> bool {
    let needle = format!("{file_name}:{line}");
    text.match_indices(&needle).any(|(at, _)| {
        let before_ok = text[..at]
            .chars()
            .next_back()
            .is_none_or(|c| c == '/' || c.is_whitespace() || c == '`' || c == '\'');
        let after_ok = !text[at + needle.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit());
        before_ok && after_ok
    })
}

/// Compares one finished `agx run` with its case; returns every difference found.
pub fn differences(case: &Case, file_name: &str, run: &Finished) -> Vec<String> {
    let mut diffs = Vec::new();
    let want = case.expect.exit_code();
    if run.code != Some(want) {
        diffs.push(format!(
            "expected {:?} (exit code {want}), got {}; stderr: {}",
            case.expect,
            run.ending(),
            excerpt(&run.stderr)
        ));
        // The other checks would only repeat the same failure in other words.
        return diffs;
    }
    match &case.expect {
        Expect::Violation(kind) => check_violation(case, kind, file_name, run, &mut diffs),
        Expect::Error => {
            if let Some(line) = case.line {
                let message = run.stderr.lines().find(|l| l.starts_with("error: "));
                if !message.is_some_and(|m| names_location(m, file_name, line)) {
                    diffs.push(format!(
                        "expected an `error: {file_name}:{line}: ...` line; stderr: {}",
                        excerpt(&run.stderr)
                    ));
                }
            }
        }
        Expect::Ok => {}
    }
    if case.expect != Expect::Error {
        let expected = case.expected_stdout();
        if run.stdout != expected {
            diffs.push(stdout_difference(&expected, &run.stdout));
        }
    }
    for fragment in &case.stderr_contains {
        if !run.stderr.contains(fragment.as_str()) {
            diffs.push(format!(
                "stderr lacks `{fragment}`; stderr: {}",
                excerpt(&run.stderr)
            ));
        }
    }
    diffs
}

/// The kind and `file:line` of `agx run`'s report line
/// `agx run: VIOLATION (KIND) in thread T at FILE:LINE: MESSAGE`.
pub fn violation_report(stderr: &str) -> Option<(&str, &str)> {
    const MARK: &str = "VIOLATION (";
    let line = stderr.lines().find(|l| l.contains(MARK))?;
    let rest = &line[line.find(MARK)? + MARK.len()..];
    let (kind, rest) = rest.split_once(')')?;
    let at = &rest[rest.find(" at ")? + " at ".len()..];
    let location = at.split_once(": ").map_or(at, |(loc, _)| loc);
    Some((kind, location))
}

fn check_violation(
    case: &Case,
    kind: &str,
    file_name: &str,
    run: &Finished,
    diffs: &mut Vec<String>,
) {
    let Some((reported_kind, location)) = violation_report(&run.stderr) else {
        diffs.push(format!(
            "expected a `VIOLATION ({kind}) ... at FILE:LINE` report; stderr: {}",
            excerpt(&run.stderr)
        ));
        return;
    };
    if reported_kind != kind {
        diffs.push(format!(
            "expected a violation of kind `{kind}`, got `{reported_kind}` at {location}"
        ));
    }
    if let Some(line) = case.line {
        if !names_location(location, file_name, line) {
            diffs.push(format!(
                "expected the violation at {file_name}:{line}, got it at {location}"
            ));
        }
    }
}

/// The first differing line of two outputs, and both outputs when they are short.
pub fn stdout_difference(expected: &str, actual: &str) -> String {
    let exp: Vec<&str> = expected.split_inclusive('\n').collect();
    let act: Vec<&str> = actual.split_inclusive('\n').collect();
    let first = (0..exp.len().max(act.len()))
        .find(|&i| exp.get(i) != act.get(i))
        .unwrap_or(0);
    let show = |l: Option<&&str>| l.map_or("<end of output>".to_string(), |s| format!("{s:?}"));
    format!(
        "stdout differs at line {}: expected {}, got {}\n      expected stdout: {:?}\n      actual stdout:   {:?}",
        first + 1,
        show(exp.get(first)),
        show(act.get(first)),
        truncated(expected, 600),
        truncated(actual, 600)
    )
}

/// The start of a long text, for messages.
pub fn excerpt(text: &str) -> String {
    let t = text.trim_end();
    if t.is_empty() {
        "<empty>".to_string()
    } else {
        format!("{:?}", truncated(t, 600))
    }
}

fn truncated(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &text[..end])
}
