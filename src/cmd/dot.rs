//! Graphviz pictures: a small typed DOT graph (clusters, nodes, edges, attributes) whose
//! every string is quoted and escaped in one place, and `--graph FILE` writing it as DOT,
//! or as SVG through Graphviz's `dot` when FILE ends in `.svg`.
//!
//! No DOT crate is a dependency: the ones on crates.io either write labels unescaped (a
//! `"` in a path cut the label, issue 16) or bring a DOT parser along. What agx draws
//! needs clusters, nodes, edges and attributes, which is this module.

use anyhow::{bail, Context, Result};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

/// `name=value` pairs; values are quoted and escaped when written.
pub type Attrs = Vec<(&'static str, String)>;

/// A node: its id, a label of one or more lines (left-justified) and other attributes.
#[derive(Clone, Debug, Default)]
pub struct Node {
    pub id: String,
    pub label: Vec<String>,
    pub attrs: Attrs,
}

#[derive(Clone, Debug, Default)]
pub struct Edge {
    pub from: String,
    pub to: String,
    pub attrs: Attrs,
}

/// A box of nodes drawn together (a thread's column, a target's abstract system).
#[derive(Clone, Debug, Default)]
pub struct Cluster {
    pub label: String,
    pub attrs: Attrs,
    pub nodes: Vec<Node>,
}

/// A directed graph.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    pub name: String,
    /// Graph attributes (`rankdir`, `label`, ...).
    pub attrs: Attrs,
    /// Attributes every node gets.
    pub node_attrs: Attrs,
    pub clusters: Vec<Cluster>,
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
}

/// A DOT double-quoted string. Graphviz reads `\"` as a quote and `\\` as a backslash;
/// a newline becomes `\l` (the line before it left-justified) when `lines` is true.
pub fn quote(text: &str, lines: bool) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' if lines => out.push_str("\\l"),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// At most 60 characters, so that one long source line does not widen a whole column.
pub fn shorten(text: &str) -> String {
    if text.chars().count() <= 60 {
        return text.to_string();
    }
    let cut: String = text.chars().take(57).collect();
    format!("{cut}...")
}

fn attr_list(attrs: &Attrs) -> String {
    attrs
        .iter()
        .map(|(name, value)| format!("{name}={}", quote(value, false)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn write_node(out: &mut String, indent: &str, node: &Node) {
    let mut attrs = String::new();
    if !node.label.is_empty() {
        // Every line ends in `\l`, so all of them are left-justified.
        let label = node.label.join("\n") + "\n";
        attrs.push_str(&format!("label={}", quote(&label, true)));
    }
    if !node.attrs.is_empty() {
        if !attrs.is_empty() {
            attrs.push_str(", ");
        }
        attrs.push_str(&attr_list(&node.attrs));
    }
    let _ = writeln!(out, "{indent}{} [{attrs}];", quote(&node.id, false));
}

impl Graph {
    /// The graph in the DOT language.
    pub fn render(&self) -> String {
        let mut out = format!("digraph {} {{\n", quote(&self.name, false));
        for (name, value) in &self.attrs {
            let _ = writeln!(out, "  {name}={};", quote(value, false));
        }
        if !self.node_attrs.is_empty() {
            let _ = writeln!(out, "  node [{}];", attr_list(&self.node_attrs));
        }
        for (i, cluster) in self.clusters.iter().enumerate() {
            let _ = writeln!(out, "  subgraph cluster_{i} {{");
            let _ = writeln!(out, "    label={};", quote(&cluster.label, false));
            for (name, value) in &cluster.attrs {
                let _ = writeln!(out, "    {name}={};", quote(value, false));
            }
            for node in &cluster.nodes {
                write_node(&mut out, "    ", node);
            }
            out.push_str("  }\n");
        }
        for node in &self.nodes {
            write_node(&mut out, "  ", node);
        }
        for edge in &self.edges {
            let attrs = if edge.attrs.is_empty() {
                String::new()
            } else {
                format!(" [{}]", attr_list(&edge.attrs))
            };
            let _ = writeln!(
                out,
                "  {} -> {}{attrs};",
                quote(&edge.from, false),
                quote(&edge.to, false)
            );
        }
        out.push_str("}\n");
        out
    }
}

/// Writes `graph` to `path`: SVG through Graphviz's `dot` when the name ends in `.svg`,
/// else DOT text. Without `dot` on PATH an SVG is an error that says so.
pub fn write(path: &Path, graph: &Graph) -> Result<()> {
    let text = graph.render();
    let svg = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("svg"));
    if !svg {
        return std::fs::write(path, text).with_context(|| format!("writing {}", path.display()));
    }
    // The DOT goes in a file, not a pipe: a `dot` that ends without reading it would
    // otherwise end agx by SIGPIPE.
    let mut input = tempfile::Builder::new()
        .suffix(".dot")
        .tempfile()
        .context("a temporary file for the DOT")?;
    input
        .write_all(text.as_bytes())
        .context("writing the DOT")?;
    let output = match Command::new("dot")
        .arg("-Tsvg")
        .arg("-o")
        .arg(path)
        .arg(input.path())
        .stdin(Stdio::null())
        .output()
    {
        Ok(output) => output,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => bail!(
            "{}: an SVG needs Graphviz's `dot`, which is not on PATH (install graphviz, or \
             give a .dot file and render it elsewhere)",
            path.display()
        ),
        Err(e) => return Err(e).context("starting Graphviz's `dot`"),
    };
    if !output.status.success() {
        bail!(
            "{}: `dot -Tsvg` failed ({}): {}",
            path.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_are_shortened() {
        assert_eq!(shorten("x = 1;"), "x = 1;");
        let long = "a".repeat(70);
        assert_eq!(shorten(&long), format!("{}...", "a".repeat(57)));
    }

    #[test]
    fn quotes_backslashes_and_newlines_are_escaped() {
        assert_eq!(quote(r#"a "b" c\d"#, false), r#""a \"b\" c\\d""#);
        assert_eq!(quote("x\ny", true), r#""x\ly""#);
        assert_eq!(quote("x\r\ny", false), r#""x\ny""#);
    }

    #[test]
    fn a_graph_renders_clusters_nodes_and_edges() {
        let graph = Graph {
            name: "g".into(),
            attrs: vec![("rankdir", "TB".into())],
            node_attrs: vec![("shape", "box".into())],
            clusters: vec![Cluster {
                label: "dir \"x\"/a.c".into(),
                attrs: vec![],
                nodes: vec![Node {
                    id: "s1".into(),
                    label: vec!["line 3".into(), "x = \"y\";".into()],
                    attrs: vec![("color", "red".into())],
                }],
            }],
            nodes: vec![],
            edges: vec![Edge {
                from: "s1".into(),
                to: "s1".into(),
                attrs: vec![("style", "dashed".into())],
            }],
        };
        assert_eq!(
            graph.render(),
            "digraph \"g\" {\n  rankdir=\"TB\";\n  node [shape=\"box\"];\n  subgraph cluster_0 {\n    label=\"dir \\\"x\\\"/a.c\";\n    \"s1\" [label=\"line 3\\lx = \\\"y\\\";\\l\", color=\"red\"];\n  }\n  \"s1\" -> \"s1\" [style=\"dashed\"];\n}\n"
        );
    }
}
