//! User Datalog rules at run time: `agx rules eval`, `agx rules print`, and the
//! `RULES.dl:REL` relations that `slice --criteria-from`, `hunt --targets-from` and
//! `warnings --rules` read.

use super::common::{source_line, InputArgs};
use super::rules::load_facts;
use analysis::facts::{Facts, StmtId};
use anyhow::{bail, Context, Result};
use rules::dl::{self, value, Evaluation, Inputs, RulesFile, Type};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct EvalArgs {
    /// The rules file (Soufflé syntax subset; see docs/rules-tutorial.md).
    pub rules: PathBuf,
    #[command(flatten)]
    pub input: InputArgs,
    /// Print these relations (default: the `.output` ones).
    #[arg(long = "output", value_name = "REL")]
    pub outputs: Vec<String>,
    #[arg(long, default_value = "table", value_parser = ["table", "tsv", "json"])]
    pub format: String,
    /// Print load and evaluation times and relation sizes to stderr.
    #[arg(long)]
    pub stats: bool,
}

#[derive(clap::Args)]
pub struct PrintArgs {
    /// A fact relation (see `agx facts`' schema.dl) or a built-in relation (`agx rules list`).
    pub relation: String,
    #[command(flatten)]
    pub input: InputArgs,
    #[arg(long, default_value = "table", value_parser = ["table", "tsv", "json"])]
    pub format: String,
}

/// Parses and evaluates a rules file over a program's facts.
pub fn evaluate(path: &Path, facts: &Facts) -> Result<Evaluation> {
    let file = RulesFile::read(path)?;
    let inputs = Inputs::new(facts);
    let e = dl::evaluate(&file, &inputs)?;
    for w in &e.program.warnings {
        eprintln!("warning: {w}");
    }
    Ok(e)
}

pub fn eval(args: EvalArgs) -> Result<ExitCode> {
    let facts = load_facts(&args.input)?;
    let e = evaluate(&args.rules, &facts)?;
    let names: Vec<String> = if args.outputs.is_empty() {
        e.outputs().into_iter().map(str::to_string).collect()
    } else {
        args.outputs.clone()
    };
    if names.is_empty() {
        bail!(
            "{}: no relation to print: mark some with `.output REL` or pass --output REL",
            args.rules.display()
        );
    }
    for n in &names {
        if e.columns(n).is_none() {
            bail!("--output {n}: the rules declare no relation `{n}`");
        }
    }
    if args.stats {
        eprintln!(
            "load {:.3} ms, eval {:.3} ms",
            e.load_time.as_secs_f64() * 1e3,
            e.eval_time.as_secs_f64() * 1e3
        );
        for r in &e.program.relations {
            let id = e.program.relation(&r.name).expect("relation");
            eprintln!("  {:<24} {}", r.name, e.db.rels[id].len());
        }
    }
    let tables: Vec<Table> = names.iter().map(|n| table(&e, n, &facts)).collect();
    print_tables(&tables, &args.format)?;
    Ok(ExitCode::SUCCESS)
}

/// `agx rules print REL FILE`: one fact or built-in relation, through a one-line program.
pub fn print(args: PrintArgs) -> Result<ExitCode> {
    let facts = load_facts(&args.input)?;
    let columns: Vec<(String, Type)> = if let Some(r) =
        Facts::RELATIONS.iter().find(|r| r.name == args.relation)
    {
        r.columns
            .iter()
            .map(|&(n, t)| {
                (
                    n.to_string(),
                    if t == "number" {
                        Type::Number
                    } else {
                        Type::Symbol
                    },
                )
            })
            .collect()
    } else if let Some(b) = dl::builtin::find(&args.relation) {
        b.column_types()
    } else {
        let builtins: Vec<&str> = dl::builtin::BUILTINS.iter().map(|b| b.name).collect();
        bail!(
            "unknown relation `{}`: not a fact (see schema.dl of `agx facts`) nor a built-in relation ({})",
            args.relation,
            builtins.join(", ")
        );
    };
    let cols: Vec<String> = columns
        .iter()
        .map(|(n, t)| format!("{n}: {}", t.name()))
        .collect();
    let text = format!(
        ".decl {r}({})\n.input {r}\n.output {r}\n",
        cols.join(", "),
        r = args.relation
    );
    let file = RulesFile::parse(&text, Path::new("<print>"))?;
    let e = dl::evaluate(&file, &Inputs::new(&facts))?;
    print_tables(&[table(&e, &args.relation, &facts)], &args.format)?;
    Ok(ExitCode::SUCCESS)
}

struct Table {
    name: String,
    columns: Vec<String>,
    /// Rendered rows, and the source line of the row's first statement.
    rows: Vec<(Vec<serde_json::Value>, Option<String>)>,
}

fn table(e: &Evaluation, name: &str, facts: &Facts) -> Table {
    let cols = e.columns(name).expect("checked relation").to_vec();
    let lines = facts.stmt_lines();
    let mut tuples = e.tuples(name).unwrap_or_default();
    tuples.sort();
    let rows = tuples
        .iter()
        .map(|t| {
            let mut src = None;
            let vals =
                t.iter()
                    .zip(&cols)
                    .map(|(&v, (_, ty))| match ty {
                        Type::Number => serde_json::Value::from(v),
                        Type::Symbol => {
                            if src.is_none() {
                                if let Some(('s', id)) = value::as_atom(v) {
                                    src = lines.get(id as usize).copied().flatten().and_then(
                                        |(f, l)| {
                                            let file = facts.names.files.get(f.index())?;
                                            source_line(file, l).map(|s| s.trim().to_string())
                                        },
                                    );
                                }
                            }
                            serde_json::Value::from(e.symbols().render(v))
                        }
                    })
                    .collect();
            (vals, src)
        })
        .collect();
    Table {
        name: name.to_string(),
        columns: cols.into_iter().map(|c| c.0).collect(),
        rows,
    }
}

fn plain(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn print_tables(tables: &[Table], format: &str) -> Result<()> {
    match format {
        "json" => {
            let out: serde_json::Map<String, serde_json::Value> = tables
                .iter()
                .map(|t| {
                    let rows: Vec<serde_json::Value> = t
                        .rows
                        .iter()
                        .map(|(vals, src)| {
                            let mut m: serde_json::Map<String, serde_json::Value> = t
                                .columns
                                .iter()
                                .cloned()
                                .zip(vals.iter().cloned())
                                .collect();
                            if let Some(s) = src {
                                // A column of the user's named `source` keeps its value.
                                let key = if m.contains_key("source") {
                                    "_source"
                                } else {
                                    "source"
                                };
                                m.insert(key.into(), s.clone().into());
                            }
                            serde_json::Value::Object(m)
                        })
                        .collect();
                    (t.name.clone(), serde_json::Value::Array(rows))
                })
                .collect();
            println!("{}", serde_json::to_string_pretty(&out)?);
        }
        "tsv" => {
            // Soufflé's .facts format: one relation (several: a `# name` line before each).
            for t in tables {
                if tables.len() > 1 {
                    println!("# {}", t.name);
                }
                for (vals, _) in &t.rows {
                    let fields: Vec<String> = vals.iter().map(plain).collect();
                    println!("{}", fields.join("\t"));
                }
            }
        }
        _ => {
            for (i, t) in tables.iter().enumerate() {
                if i > 0 {
                    println!();
                }
                println!("{} ({} tuples)", t.name, t.rows.len());
                let mut widths: Vec<usize> = t.columns.iter().map(String::len).collect();
                for (vals, _) in &t.rows {
                    for (w, v) in widths.iter_mut().zip(vals) {
                        *w = (*w).max(plain(v).len());
                    }
                }
                let header: Vec<String> = t
                    .columns
                    .iter()
                    .zip(&widths)
                    .map(|(c, w)| format!("{c:<w$}"))
                    .collect();
                println!("  {}", header.join("  ").trim_end());
                for (vals, src) in &t.rows {
                    let cells: Vec<String> = vals
                        .iter()
                        .zip(&widths)
                        .map(|(v, w)| format!("{:<w$}", plain(v)))
                        .collect();
                    let mut line = format!("  {}", cells.join("  "));
                    if let Some(s) = src {
                        line.push_str(&format!("  | {s}"));
                    }
                    println!("{}", line.trim_end());
                }
            }
        }
    }
    Ok(())
}

/// Splits `RULES.dl:REL` at its last colon.
fn split_spec(spec: &str) -> Result<(PathBuf, String)> {
    match spec.rsplit_once(':') {
        Some((path, rel)) if !path.is_empty() && !rel.is_empty() => {
            Ok((PathBuf::from(path), rel.to_string()))
        }
        _ => bail!("`{spec}`: expected RULES.dl:RELATION"),
    }
}

/// The statements of relation `REL` (its first column) computed by `RULES.dl` over a
/// program's facts: the criteria of `slice --criteria-from` and the targets of
/// `hunt --targets-from`.
pub fn statements_from(spec: &str, facts: &Facts) -> Result<Vec<StmtId>> {
    let (path, rel) = split_spec(spec)?;
    let e = evaluate(&path, facts).with_context(|| format!("evaluating {}", path.display()))?;
    let Some(cols) = e.columns(&rel) else {
        bail!("{}: no relation `{rel}`", path.display());
    };
    if cols.first().map(|c| c.1) != Some(Type::Symbol) {
        bail!(
            "{}: relation `{rel}` must have a statement as its first column",
            path.display()
        );
    }
    let mut out = Vec::new();
    for t in e.tuples(&rel).unwrap_or_default() {
        match value::as_atom(t[0]) {
            Some(('s', id)) => out.push(StmtId(id)),
            _ => bail!(
                "{}: relation `{rel}`: `{}` is not a statement (expected an atom like s12)",
                path.display(),
                e.symbols().render(t[0])
            ),
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// A finding of a user checker: `(statement, message)` tuples of one relation.
pub struct Finding {
    pub rule_id: String,
    pub stmt: StmtId,
    pub message: String,
}

/// Every `.output` relation of the rules whose first column is a statement and second a
/// symbol (the message) becomes a checker; its name is the rule id.
pub fn findings(path: &Path, facts: &Facts) -> Result<Vec<Finding>> {
    let e = evaluate(path, facts).with_context(|| format!("evaluating {}", path.display()))?;
    let mut out = Vec::new();
    let mut checkers = 0;
    for rel in e.outputs() {
        let cols = e.columns(rel).expect("relation");
        if cols.len() != 2 || cols[0].1 != Type::Symbol || cols[1].1 != Type::Symbol {
            continue;
        }
        checkers += 1;
        for t in e.tuples(rel).unwrap_or_default() {
            let Some(('s', id)) = value::as_atom(t[0]) else {
                bail!(
                    "{}: `{rel}`: `{}` is not a statement",
                    path.display(),
                    e.symbols().render(t[0])
                );
            };
            out.push(Finding {
                rule_id: rel.to_string(),
                stmt: StmtId(id),
                message: e.symbols().render(t[1]),
            });
        }
    }
    if checkers == 0 {
        bail!(
            "{}: no checker: mark a relation `(stmt: symbol, message: symbol)` with `.output`",
            path.display()
        );
    }
    out.sort_by(|a, b| (&a.rule_id, a.stmt, &a.message).cmp(&(&b.rule_id, b.stmt, &b.message)));
    Ok(out)
}

/// `file:line` of a statement.
pub fn stmt_location(facts: &Facts, s: StmtId) -> Option<analysis::sarif::SourceLocation> {
    let (f, line) = facts.stmt_lines().get(s.index()).copied().flatten()?;
    Some(analysis::sarif::SourceLocation {
        file: facts.names.files.get(f.index())?.clone(),
        line,
    })
}

/// The user checkers' findings of `agx warnings --rules`, in the chosen format.
/// Prints the findings of the user rules; returns how many there are.
pub fn print_findings(
    paths: &[PathBuf],
    facts: &Facts,
    format: super::warnings::Format,
) -> Result<usize> {
    use super::warnings::Format;
    use analysis::sarif::{Finding as SarifFinding, Rule};
    let mut all = Vec::new();
    for p in paths {
        all.extend(findings(p, facts)?);
    }
    let located: Vec<(&Finding, analysis::sarif::SourceLocation)> = all
        .iter()
        .map(|f| {
            let loc = stmt_location(facts, f.stmt).unwrap_or(analysis::sarif::SourceLocation {
                file: "?".into(),
                line: 0,
            });
            (f, loc)
        })
        .collect();
    match format {
        Format::Text => {
            if located.is_empty() {
                println!("no warnings");
            }
            for (i, (f, loc)) in located.iter().enumerate() {
                println!("{:>3}. [{}] {loc}: {}", i + 1, f.rule_id, f.message);
            }
        }
        Format::Json => {
            let out: Vec<serde_json::Value> = located
                .iter()
                .map(|(f, loc)| {
                    serde_json::json!({
                        "rule_id": f.rule_id, "stmt": f.stmt.to_string(),
                        "location": loc.to_string(), "message": f.message,
                    })
                })
                .collect();
            println!("{}", serde_json::to_string_pretty(&out)?);
        }
        Format::Sarif => {
            let mut ids: Vec<&str> = all.iter().map(|f| f.rule_id.as_str()).collect();
            ids.sort();
            ids.dedup();
            let rules: Vec<Rule> = ids
                .iter()
                .map(|id| Rule {
                    id: id.to_string(),
                    name: id.to_string(),
                    description: format!("user rule `{id}`"),
                    ..Rule::default()
                })
                .collect();
            let results: Vec<SarifFinding> = located
                .iter()
                .map(|(f, loc)| {
                    let mut properties = serde_json::Map::new();
                    properties.insert("kind".into(), serde_json::json!("location"));
                    properties.insert("stmt".into(), serde_json::json!(f.stmt.to_string()));
                    SarifFinding {
                        rule_id: f.rule_id.clone(),
                        level: "warning".into(),
                        message: f.message.clone(),
                        locations: vec![loc.clone()],
                        flow: Vec::new(),
                        flow_message: None,
                        properties,
                        ..SarifFinding::default()
                    }
                })
                .collect();
            let log =
                analysis::sarif::write_log("agx", env!("CARGO_PKG_VERSION"), &rules, &results);
            println!("{}", serde_json::to_string_pretty(&log)?);
        }
    }
    Ok(all.len())
}

/// `agx rules time`: each shipped `.dl` rule set interpreted over the same inputs as its
/// ascent program, fastest of `repeat` runs, beside the compiled time.
pub fn time_interpreted(
    facts: &Facts,
    compiled: &[Vec<rules::Timing>],
    repeat: usize,
    only: &[String],
) -> Result<()> {
    let inputs = Inputs::new(facts);
    inputs.analysis();
    println!(
        "{:<16} {:>12} {:>15} {:>7}",
        "rule set", "ascent ms", "interpreted ms", "ratio"
    );
    let (mut total_a, mut total_i) = (0.0, 0.0);
    for (set, _, _) in dl::SHIPPED {
        if !only.is_empty() && !only.iter().any(|n| n == set) {
            continue;
        }
        let file = dl::shipped(set).expect("shipped");
        let mut best = f64::INFINITY;
        for _ in 0..repeat {
            let e = dl::evaluate(&file, &inputs)?;
            best = best.min(e.eval_time.as_secs_f64() * 1e3);
        }
        let ascent = compiled
            .iter()
            .filter_map(|run| run.iter().find(|t| t.rule_set == *set))
            .map(|t| t.duration.as_secs_f64() * 1e3)
            .reduce(f64::min);
        match ascent {
            Some(a) => {
                total_a += a;
                total_i += best;
                println!("{set:<16} {a:>12.3} {best:>15.3} {:>6.2}x", best / a);
            }
            None => println!("{set:<16} {:>12} {best:>15.3}", "-"),
        }
    }
    if total_a > 0.0 {
        println!(
            "{:<16} {total_a:>12.3} {total_i:>15.3} {:>6.2}x",
            "total",
            total_i / total_a
        );
    }
    println!("(fastest of the runs; interpreted: evaluation only, over the inputs ascent reads)");
    Ok(())
}
