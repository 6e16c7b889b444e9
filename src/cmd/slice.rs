//! `agx slice FILE`: for each target location, the backward slice (as source lines) and
//! the abstract system; with several targets, a ranking (statically unreachable ones
//! dropped with a reason, the rest by cost: abstract-trace length, threads involved,
//! slice size).

use super::common::{source_line, InputArgs, TargetArgs};
use super::dot;
use super::rules::load_facts;
use crate::driver::{self, Lines, Location};
use analysis::facts::{Facts, FuncId, StmtId};
use anyhow::{anyhow, bail, Result};
use rules::abstract_system::{AbstractSystem, EdgeKind};
use rules::Analysis;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub targets: TargetArgs,
    /// Targets from a relation of statements computed by user rules (`RULES.dl:REL`).
    #[arg(long, value_name = "RULES.dl:REL")]
    pub criteria_from: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Also draw the abstract systems to FILE: DOT, or SVG when FILE ends in `.svg`
    /// (needs Graphviz's `dot`).
    #[arg(long, value_name = "FILE")]
    pub graph: Option<PathBuf>,
}

/// `--format` of `agx slice`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    Dot,
}

/// A source line of the program.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Line {
    pub file: String,
    pub line: u32,
}

pub fn lines_of(facts: &Facts, stmts: &BTreeSet<StmtId>) -> BTreeSet<Line> {
    let lines = facts.stmt_lines();
    stmts
        .iter()
        .filter_map(|s| lines.get(s.index()).copied().flatten())
        .map(|(f, l)| Line {
            file: facts.names.files[f.index()].clone(),
            line: l,
        })
        .collect()
}

#[derive(Serialize)]
struct NodeOut {
    stmt: String,
    location: String,
    roles: Vec<&'static str>,
    /// The source line, for the graph (the JSON has it in `location`).
    #[serde(skip)]
    line: Option<Line>,
}

#[derive(Serialize)]
struct EdgeOut {
    from: String,
    to: String,
    kind: EdgeKind,
}

#[derive(Serialize)]
struct Score {
    trace_length: usize,
    threads: Vec<String>,
    slice_size: usize,
}

#[derive(Serialize)]
struct TargetReport {
    location: String,
    statements: Vec<String>,
    /// `None` when the target was dropped.
    rank: Option<usize>,
    dropped: Option<String>,
    score: Option<Score>,
    slice: Vec<Line>,
    abstract_nodes: Vec<NodeOut>,
    abstract_edges: Vec<EdgeOut>,
    trace: Vec<String>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let facts = load_facts(&args.input)?;
    let lines = Lines::of_facts(&facts);
    for t in &args.targets.targets {
        lines.statements(t).map_err(|e| anyhow!("--target {e}"))?;
    }
    let mut locations: Vec<Location> = args.targets.targets.clone();
    // Every location of a multi-location result (a race) is sliced on its own.
    locations.extend(
        args.targets
            .sarif_targets()?
            .into_iter()
            .flat_map(|t| t.locations)
            .map(|l| Location {
                file: l.file,
                line: l.line,
            }),
    );
    if let Some(spec) = &args.criteria_from {
        for s in super::user_rules::statements_from(spec, &facts)? {
            locations.extend(lines.location_of(s));
        }
    }
    if args.targets.assertions {
        locations.extend(
            facts
                .error_site
                .iter()
                .filter_map(|e| lines.location_of(e.0)),
        );
    }
    let mut seen = BTreeSet::new();
    locations.retain(|l| seen.insert((l.file.clone(), l.line)));
    if locations.is_empty() {
        bail!("no targets: give --target FILE:LINE, --assertions, --sarif FILE or --criteria-from RULES.dl:REL (or the relation is empty)");
    }
    let analysis = Analysis::run(&facts);
    let mut reports: Vec<TargetReport> = locations
        .iter()
        .map(|loc| report(&facts, &lines, &analysis, loc))
        .collect();
    rank(&mut reports);
    if let Some(path) = &args.graph {
        dot::write(path, &graph(&reports))?;
    }
    match args.format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&reports)?),
        Format::Dot => print!("{}", graph(&reports).render()),
        Format::Text => print!("{}", text(&reports)),
    }
    Ok(ExitCode::SUCCESS)
}

fn report(facts: &Facts, lines: &Lines, analysis: &Analysis, loc: &Location) -> TargetReport {
    let stmts = lines.target(loc).unwrap_or_default();
    let mut r = TargetReport {
        location: loc.to_string(),
        statements: stmts.iter().map(|s| s.to_string()).collect(),
        rank: None,
        dropped: None,
        score: None,
        slice: Vec::new(),
        abstract_nodes: Vec::new(),
        abstract_edges: Vec::new(),
        trace: Vec::new(),
    };
    if stmts.is_empty() {
        r.dropped = Some("no statement at this line".into());
        return r;
    }
    let slice = analysis.backward_slice(&stmts);
    r.slice = lines_of(facts, &slice).into_iter().collect();
    let system = analysis.abstract_system(facts, &stmts);
    describe_system(facts, &system, &mut r);
    if let Some(why) = driver::unreachable(facts, analysis, &stmts) {
        r.dropped = Some(why.to_string());
        return r;
    }
    let trace = stmts
        .iter()
        .filter_map(|&t| system.shortest_trace(t))
        .min_by_key(Vec::len);
    let Some(trace) = trace else {
        r.dropped = Some("no abstract trace from the start of main reaches it".into());
        return r;
    };
    r.trace = trace.iter().map(|s| label(facts, *s)).collect();
    r.score = Some(Score {
        trace_length: trace.len(),
        threads: threads_involved(facts, analysis, &slice),
        slice_size: slice.len(),
    });
    r
}

fn label(facts: &Facts, s: StmtId) -> String {
    format!("{s}@{}", facts.stmt_label(s))
}

fn describe_system(facts: &Facts, system: &AbstractSystem, r: &mut TargetReport) {
    let stmt_lines = facts.stmt_lines();
    for (s, roles) in &system.nodes {
        r.abstract_nodes.push(NodeOut {
            stmt: s.to_string(),
            location: facts.stmt_label(*s).to_string(),
            roles: roles.iter().map(|x| x.name()).collect(),
            line: stmt_lines
                .get(s.index())
                .copied()
                .flatten()
                .map(|(f, line)| Line {
                    file: facts.names.files[f.index()].clone(),
                    line,
                }),
        });
    }
    for &(a, b, kind) in &system.edges {
        r.abstract_edges.push(EdgeOut {
            from: a.to_string(),
            to: b.to_string(),
            kind,
        });
    }
}

fn threads_involved(facts: &Facts, analysis: &Analysis, slice: &BTreeSet<StmtId>) -> Vec<String> {
    let func_of: HashMap<StmtId, FuncId> = facts.stmt_func.iter().copied().collect();
    let funcs: BTreeSet<FuncId> = slice
        .iter()
        .filter_map(|s| func_of.get(s).copied())
        .collect();
    let threads: BTreeSet<FuncId> = funcs
        .iter()
        .flat_map(|&f| analysis.call_graph.threads_running(f))
        .collect();
    threads
        .iter()
        .map(|&t| facts.func_name(t).to_string())
        .collect()
}

/// Ranks the kept targets by (trace length, threads, slice size), cheapest first.
fn rank(reports: &mut [TargetReport]) {
    let mut order: Vec<usize> = (0..reports.len())
        .filter(|&i| reports[i].score.is_some())
        .collect();
    order.sort_by_key(|&i| {
        let s = reports[i]
            .score
            .as_ref()
            .map(|s| (s.trace_length, s.threads.len(), s.slice_size));
        (s, i)
    });
    for (rank, i) in order.into_iter().enumerate() {
        reports[i].rank = Some(rank + 1);
    }
}

fn text(reports: &[TargetReport]) -> String {
    let mut out = String::new();
    for r in reports {
        let _ = writeln!(out, "target {} ({})", r.location, r.statements.join(", "));
        let _ = writeln!(out, "  backward slice: {} lines", r.slice.len());
        for l in &r.slice {
            let src = source_line(&l.file, l.line)
                .unwrap_or_default()
                .trim()
                .to_string();
            let _ = writeln!(out, "    {}:{:<5} {src}", l.file, l.line);
        }
        let _ = writeln!(
            out,
            "  abstract system: {} locations, {} edges",
            r.abstract_nodes.len(),
            r.abstract_edges.len()
        );
        for n in &r.abstract_nodes {
            let _ = writeln!(
                out,
                "    {:<6} {:<24} {}",
                n.stmt,
                n.location,
                n.roles.join(", ")
            );
        }
        for e in &r.abstract_edges {
            let _ = writeln!(out, "    {} -> {} ({:?})", e.from, e.to, e.kind);
        }
        if !r.trace.is_empty() {
            let _ = writeln!(out, "  shortest abstract trace: {}", r.trace.join(" -> "));
        }
        out.push('\n');
    }
    if reports.len() > 1 {
        out.push_str(&ranking_text(reports));
    }
    out
}

fn ranking_text(reports: &[TargetReport]) -> String {
    let mut out =
        String::from("ranking (cheapest first: abstract-trace length, threads, slice size)\n");
    let mut ranked: Vec<&TargetReport> = reports.iter().filter(|r| r.rank.is_some()).collect();
    ranked.sort_by_key(|r| r.rank);
    for r in ranked {
        if let (Some(rank), Some(s)) = (r.rank, &r.score) {
            let _ = writeln!(
                out,
                "  {rank}. {}: trace of {} locations, {} thread(s) ({}), slice of {} statements",
                r.location,
                s.trace_length,
                s.threads.len(),
                s.threads.join(", "),
                s.slice_size
            );
        }
    }
    for r in reports.iter().filter(|r| r.dropped.is_some()) {
        let _ = writeln!(
            out,
            "  dropped {}: {}",
            r.location,
            r.dropped.as_deref().unwrap_or("")
        );
    }
    out
}

/// The abstract systems as a graph: one box per target, one node per source line (the
/// statements of a line merged, with their roles), edges between lines.
fn graph(reports: &[TargetReport]) -> dot::Graph {
    let mut graph = dot::Graph {
        name: "abstract_system".into(),
        attrs: vec![
            ("labelloc", "b".into()),
            ("label", LEGEND.into()),
            ("fontname", "monospace".into()),
        ],
        node_attrs: vec![("shape", "box".into()), ("fontname", "monospace".into())],
        ..dot::Graph::default()
    };
    for (i, r) in reports.iter().enumerate() {
        let target_file = r.location.rsplit_once(':').map_or("", |(f, _)| f);
        let mut lines: BTreeMap<(String, u32), BTreeSet<&'static str>> = BTreeMap::new();
        let mut line_of: HashMap<&str, (String, u32)> = HashMap::new();
        for n in &r.abstract_nodes {
            let Some(at) = n.line.clone() else { continue };
            let key = (at.file, at.line);
            lines.entry(key.clone()).or_default().extend(&n.roles);
            line_of.insert(&n.stmt, key);
        }
        let id = |(file, line): &(String, u32)| format!("t{i}:{file}:{line}");
        let nodes = lines
            .iter()
            .map(|(key, roles)| line_node(id(key), key, roles, target_file))
            .collect();
        let mut source = r.location.clone();
        if let Some((file, line)) = r.location.rsplit_once(':') {
            if let Some(text) = line.parse().ok().and_then(|l| source_line(file, l)) {
                source = format!("{source}: {}", text.trim());
            }
        }
        graph.clusters.push(dot::Cluster {
            label: format!("target {source}"),
            attrs: vec![("labeljust", "l".into()), ("labelloc", "t".into())],
            nodes,
        });
        let mut edges = BTreeSet::new();
        for e in &r.abstract_edges {
            let (Some(from), Some(to)) = (line_of.get(e.from.as_str()), line_of.get(e.to.as_str()))
            else {
                continue;
            };
            if from != to {
                edges.insert((id(from), id(to), e.kind == EdgeKind::Call));
            }
        }
        graph
            .edges
            .extend(edges.into_iter().map(|(from, to, call)| dot::Edge {
                from,
                to,
                attrs: vec![("style", if call { "dashed" } else { "solid" }.into())],
            }));
    }
    graph
}

/// What the picture's shapes mean, printed under it.
const LEGEND: &str = "one box per source line with the roles of its statements in the \
abstract system\nred: the target; solid edge: a path within a function; dashed edge: a call \
or a thread's start";

fn line_node(
    id: String,
    (file, line): &(String, u32),
    roles: &BTreeSet<&'static str>,
    target_file: &str,
) -> dot::Node {
    let place = if file == target_file {
        format!("line {line}")
    } else {
        format!("{file}:{line}")
    };
    let text = source_line(file, *line).map_or(String::new(), |t| dot::shorten(t.trim()));
    let mut attrs = Vec::new();
    if roles.contains("target") {
        attrs.push(("color", "red".to_string()));
        attrs.push(("penwidth", "2".to_string()));
    }
    dot::Node {
        id,
        label: vec![
            format!("{place}: {text}"),
            roles.iter().copied().collect::<Vec<_>>().join(", "),
        ],
        attrs,
    }
}
