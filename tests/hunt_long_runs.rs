//! A long `agx hunt`: `--total-timeout` bounds the whole command, SIGINT ends it with the
//! report of the results so far (UNKNOWN naming the interruption, exit 3), and the
//! progress lines (hunt's and verify's) show on a terminal only.

mod common;
mod corpus_gate;

use common::{agx_bin, project_root};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A program whose assertion holds, with enough lock interleavings (3 threads, 40
/// critical sections each) that refuting it takes far longer than these tests wait.
const SLOW: &str = r#"#include <assert.h>
#include <pthread.h>
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int counter = 0;
void *work(void *arg) {
    for (int i = 0; i < 40; i++) {
        pthread_mutex_lock(&m);
        counter = counter + 1;
        pthread_mutex_unlock(&m);
    }
    return 0;
}
int main(void) {
    pthread_t a, b, c;
    pthread_create(&a, 0, work, 0);
    pthread_create(&b, 0, work, 0);
    pthread_create(&c, 0, work, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    pthread_join(c, 0);
    assert(counter == 120);
    return 0;
}
"#;

fn slow_program(name: &str) -> PathBuf {
    let dir = project_root()
        .join("target")
        .join(format!("hunt-long-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("slow.c");
    std::fs::write(&file, SLOW).unwrap();
    file
}

fn hunt_args(file: &Path, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "hunt",
        file.to_str().unwrap(),
        "--assertions",
        "--jobs",
        "1",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

/// Runs `agx hunt` on `file` with `extra` to its end: its output and wall-clock seconds.
fn timed_hunt(file: &Path, extra: &[&str]) -> (std::process::Output, f64) {
    let started = Instant::now();
    let o = Command::new(agx_bin())
        .args(hunt_args(file, extra))
        .current_dir(project_root())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (o, started.elapsed().as_secs_f64())
}

#[test]
fn total_timeout_bounds_the_whole_hunt() {
    let file = slow_program("total");
    let (o, secs) = timed_hunt(&file, &["--total-timeout", "1.5", "--timeout", "600"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(3), "{out}");
    assert!(
        out.contains("UNKNOWN: timeout: the overall time budget (--total-timeout 1.500 s) ran out"),
        "{out}"
    );
    assert!(secs < 15.0, "took {secs:.1} s");
    // Not a terminal: no progress line.
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("hunt ["), "{err}");
}

/// pthread-ext/08_rand_cas: the hunt's solver queries (a multiplicative random number
/// generator) ran 55 s past a 5 s `--total-timeout`, Z3 not stopping at its timeout; the
/// watcher reports the results so far once the deadline has passed by its grace period.
/// The limit below only tells a hung run from one that ended by its deadline on a loaded
/// machine.
#[test]
fn total_timeout_holds_while_a_solver_query_overruns() {
    let Some(corpus) =
        corpus_gate::corpus_or_skip("total_timeout_holds_while_a_solver_query_overruns")
    else {
        return;
    };
    let file = corpus.join("pthread-ext/08_rand_cas.c");
    let (o, secs) = timed_hunt(
        &file,
        &["--first", "--total-timeout", "2", "--timeout", "2"],
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(3), "{out}");
    assert!(out.contains("UNKNOWN"), "{out}");
    assert!(secs < 20.0, "took {secs:.1} s");
}

#[test]
fn sigint_reports_the_results_so_far() {
    let file = slow_program("sigint");
    let child = Command::new(agx_bin())
        .args(hunt_args(&file, &["--format", "json", "--timeout", "600"]))
        .current_dir(project_root())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    // SAFETY: signals our own child, still running (it takes minutes).
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGINT);
    }
    let started = Instant::now();
    let o = child.wait_with_output().unwrap();
    let secs = started.elapsed().as_secs_f64();
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(3),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(secs < 5.0, "the report took {secs:.1} s after SIGINT");
    let goals: serde_json::Value = serde_json::from_str(&out).expect("hunt's JSON");
    let goal = &goals[0];
    assert_eq!(goal["verdict"], "unknown", "{out}");
    assert!(
        goal["reason"]
            .as_str()
            .unwrap_or("")
            .starts_with("interrupted: SIGINT or SIGTERM after"),
        "{out}"
    );
}

/// Whether `script` (util-linux) can give agx a terminal; says SKIPPED for `test` if not.
fn script_available(test: &str) -> bool {
    let found = Command::new("sh")
        .args(["-c", "command -v script"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("SKIPPED {test}: no `script` command");
    }
    found
}

#[test]
fn progress_shows_on_a_terminal_unless_quiet() {
    if !script_available("progress_shows_on_a_terminal_unless_quiet") {
        return;
    }
    let file = slow_program("progress");
    let run = |quiet: bool| {
        let mut args = hunt_args(&file, &["--total-timeout", "1"]);
        if quiet {
            args.push("--quiet".into());
        }
        let line = format!("{} {}", agx_bin().display(), args.join(" "));
        let o = Command::new("script")
            .args(["-qec", &line, "/dev/null"])
            .current_dir(project_root())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let shown = run(false);
    assert!(
        shown.contains("decided") && shown.contains("round 1") && shown.contains("goal 1:"),
        "{shown}"
    );
    let quiet = run(true);
    assert!(!quiet.contains("decided"), "{quiet}");
    assert!(quiet.contains("1 goal(s): 0 confirmed"), "{quiet}");
}

/// `agx verify`'s progress line is the CLI's, fed by the engine's progress observer: on a
/// terminal it names the search's runs and states; off a terminal nothing is drawn.
#[test]
fn verify_progress_shows_on_a_terminal_only() {
    if !script_available("verify_progress_shows_on_a_terminal_only") {
        return;
    }
    let file = slow_program("verify-progress");
    let args = format!("verify {} --timeout 2.5 --no-store", file.display());
    let line = format!("{} {args}", agx_bin().display());
    let o = Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .current_dir(project_root())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&o.stdout);
    assert!(
        shown.contains("verify [") && shown.contains(" runs, ") && shown.contains(" states"),
        "{shown}"
    );
    assert!(shown.contains("UNKNOWN"), "{shown}");
    let piped = Command::new(agx_bin())
        .args(args.split(' '))
        .current_dir(project_root())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(piped.status.code(), Some(3));
    let err = String::from_utf8_lossy(&piped.stderr);
    assert!(
        !err.contains("verify [") && !err.contains(" states"),
        "{err}"
    );
}
