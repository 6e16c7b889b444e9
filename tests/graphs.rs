//! `--graph FILE` of verify, run and slice: the DOT pictures (insta snapshots: accept a
//! reviewed change with `INSTA_UPDATE=always cargo test --test graphs`), and SVG through
//! Graphviz's `dot` or a clear error without it.

mod common;

use common::{agx_bin, project_root};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A directory of its own under target/ for one test's files.
fn scratch(name: &str) -> PathBuf {
    let dir = project_root()
        .join("target")
        .join(format!("graphs-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

fn agx_with_path(args: &[&str], path_var: Option<&Path>) -> Output {
    let mut command = Command::new(agx_bin());
    command
        .args(args)
        .current_dir(project_root())
        .stdin(Stdio::null());
    if let Some(p) = path_var {
        command.env("PATH", p);
    }
    command.output().expect("agx runs")
}

/// Runs agx with `--graph DIR/name` added and returns the file's text.
fn graph_of(args: &[&str], name: &str, code: i32) -> String {
    let dir = scratch(name);
    let file = dir.join(name);
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--graph", file.to_str().expect("utf-8 path")]);
    let o = agx_with_path(&all, None);
    assert_eq!(
        o.status.code(),
        Some(code),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let text = std::fs::read_to_string(&file).expect("the graph was written");
    let _ = std::fs::remove_dir_all(&dir);
    text
}

#[test]
fn the_lost_update_as_thread_columns_with_reads_from_and_joins() {
    let dot = graph_of(&["verify", "fixtures/verify/race_counter.c"], "race.dot", 1);
    // The write main's failing read read from, and both joins, are drawn.
    assert!(
        dot.contains(r#""e6" -> "e12" [color="blue", fontcolor="blue", label="rf counter""#),
        "{dot}"
    );
    assert_eq!(dot.matches("label=\"join\"").count(), 2, "{dot}");
    insta::assert_snapshot!(dot);
}

#[test]
fn a_run_shows_the_mutex_passing_between_threads() {
    let dot = graph_of(&["run", "fixtures/conc/store_after_unlock.c"], "run.dot", 0);
    assert!(dot.contains("style=\"dashed\""), "{dot}");
    insta::assert_snapshot!(dot);
}

#[test]
fn slice_graph_is_the_dot_format() {
    let args = [
        "slice",
        "fixtures/paper/s6_abstract_system.c",
        "--assertions",
    ];
    let file = graph_of(&args, "slice.dot", 0);
    let printed = agx_with_path(&[&args[..], &["--format", "dot"]].concat(), None);
    assert_eq!(String::from_utf8_lossy(&printed.stdout), file);
}

#[test]
fn labels_with_quotes_and_backslashes_stay_inside_their_quotes() {
    // The target line's text, shown in the labels, has `"` and `\` in it.
    let dir = scratch("quotes");
    let file = dir.join("quotes.c");
    std::fs::write(
        &file,
        "#include <assert.h>\nint x;\nint main(void) {\n  x = 1;\n  assert(x == 1); /* \"q\" \\ */\n  return 0;\n}\n",
    )
    .unwrap();
    let out = dir.join("g.dot");
    let o = agx_with_path(
        &[
            "slice",
            file.to_str().unwrap(),
            "--assertions",
            "--graph",
            out.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let dot = std::fs::read_to_string(&out).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(dot.contains(r#"assert(x == 1); /* \"q\" \\ */"#), "{dot}");
    // Outside the escapes, quotes pair up on every line.
    for line in dot.lines() {
        let unescaped = line.replace("\\\\", "").replace("\\\"", "");
        assert_eq!(unescaped.matches('"').count() % 2, 0, "{line}");
    }
}

/// A PATH with only gcc (the preprocessor) and, if given, a fake `dot`.
fn path_with(dir: &Path, fake_dot: Option<&str>) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let gcc = Command::new("sh")
        .args(["-c", "command -v gcc"])
        .output()
        .unwrap();
    let gcc = String::from_utf8_lossy(&gcc.stdout).trim().to_string();
    let _ = std::fs::remove_file(bin.join("gcc"));
    std::os::unix::fs::symlink(gcc, bin.join("gcc")).unwrap();
    if let Some(script) = fake_dot {
        use std::os::unix::fs::PermissionsExt;
        let dot = bin.join("dot");
        std::fs::write(&dot, script).unwrap();
        std::fs::set_permissions(&dot, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    bin
}

#[test]
fn svg_goes_through_graphviz_dot_or_says_it_is_missing() {
    let dir = scratch("svg");
    let svg = dir.join("race.svg");
    let args = [
        "verify",
        "fixtures/verify/race_counter.c",
        "--graph",
        svg.to_str().unwrap(),
    ];
    let o = agx_with_path(&args, Some(&path_with(&dir.join("none"), None)));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("race.svg: an SVG needs Graphviz's `dot`, which is not on PATH"),
        "{err}"
    );
    assert!(!svg.exists());
    // A stand-in `dot` that records its arguments and input shows what agx hands it.
    let fake = "#!/bin/sh\n[ \"$1\" = -Tsvg ] && [ \"$2\" = -o ] || exit 9\n{ echo '<svg>'; while IFS= read -r l; do echo \"$l\"; done < \"$4\"; } > \"$3\"\n";
    let o = agx_with_path(&args, Some(&path_with(&dir.join("fake"), Some(fake))));
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let written = std::fs::read_to_string(&svg).unwrap();
    assert!(
        written.starts_with("<svg>\ndigraph \"execution\" {"),
        "{written}"
    );
    // A failing `dot` is an error naming it.
    let o = agx_with_path(
        &args,
        Some(&path_with(
            &dir.join("broken"),
            Some("#!/bin/sh\necho 'syntax error' >&2\nexit 1\n"),
        )),
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("`dot -Tsvg` failed") && err.contains("syntax error"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
