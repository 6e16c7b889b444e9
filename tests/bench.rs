//! End-to-end tests of `agx bench` and `agx svcomp` against a fake `agx verify`.
//!
//! The harness is tested on its own: `--agx-command` points it at a shell script that
//! follows verify's JSON contract, answering what the `FAKE:` comment of each source says
//! (`safe`, `violation`, `replayable`, `unknown`, `slow`, `hog`, `unsupported`,
//! `crash`, and `misled`: verify finds the violation, hunt refutes it); `run` answers with
//! an interpreter replay; `hunt` answers with one goal per source, confirmed for
//! `violation`, refuted for `safe` and `misled`, unknown otherwise. The task definitions
//! are written here inline, in the corpus's format; no corpus file is copied.

mod corpus_gate;
mod schemas;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const FAKE_VERIFY: &str = r#"#!/bin/sh
# A stand-in for `agx verify SOURCE --format json ...` that answers what SOURCE's
# `FAKE: mode` comment says; runs depend on --strategy so ratios can be checked.
if [ "$1" = run ]; then
  # `run SOURCE ... --witness W --format json --trace`: the replay of an agx witness.
  name=$(basename "$2")
  echo "{\"outcome\":{\"outcome\":\"violation\",\"kind\":\"reach_error\",\"message\":\"\",\"thread\":1,\"span\":{\"file\":0,\"line\":3,\"col\":1},\"location\":\"$name:3\",\"blocked\":[]},\"files\":[\"$2\",\"other.h\"],\"trace\":[{\"thread\":0,\"stmt\":1,\"span\":{\"file\":0,\"line\":5,\"col\":3},\"event\":\"statement\"},{\"thread\":1,\"stmt\":2,\"span\":{\"file\":1,\"line\":9,\"col\":1},\"event\":\"statement\"},{\"thread\":1,\"stmt\":3,\"span\":{\"file\":0,\"line\":2,\"col\":1},\"event\":\"statement\"}],\"inputs\":[],\"output\":\"\",\"stats\":{}}"
  exit 1
fi
if [ "$1" = hunt ]; then
  mode=$(sed -n 's/.*FAKE: *\([a-z]*\).*/\1/p' "$2" | head -n 1)
  stats='"stats":{"expanded":3,"states":4,"time_ms":1.5}'
  case "$mode" in
    violation) echo "[{\"goal\":1,\"verdict\":\"confirmed\",\"reason\":null,$stats}]"; exit 1 ;;
    safe|misled) echo "[{\"goal\":1,\"verdict\":\"refuted\",\"reason\":\"search finished\",$stats}]"; exit 0 ;;
    *) echo "[{\"goal\":1,\"verdict\":\"unknown\",\"reason\":\"depth bound\",$stats}]"; exit 3 ;;
  esac
fi
[ "$1" = verify ] || { echo "fake: expected verify, got $1" >&2; exit 2; }
src="$2"; shift 2
all_args="$*"
strategy=fake-default
while [ $# -gt 0 ]; do
  case "$1" in --strategy) strategy="$2"; shift ;; esac
  shift
done
mode=$(sed -n 's/.*FAKE: *\([a-z]*\).*/\1/p' "$src" | head -n 1)
runs=5; [ "$strategy" = dpor ] && runs=2
name=$(basename "$src")
stats="{\"runs\":$runs,\"partial_runs\":1,\"states\":9,\"solver_queries\":4,\"solver_time_ms\":0.5,\"time_ms\":3}"
case "$mode" in
  safe)
    echo "{\"verdict\":\"safe\",\"reason\":null,\"violation\":null,\"witness\":null,\"strategy\":\"$strategy\",\"stats\":$stats}"
    exit 0 ;;
  violation|misled)
    echo "{\"verdict\":\"violation\",\"reason\":null,\"violation\":{\"kind\":\"reach_error\",\"thread\":1,\"location\":\"$name:3\"},\"witness\":{\"steps\":[{\"thread\":0,\"location\":\"$name:5:3\",\"function\":\"main\"},{\"thread\":1,\"location\":\"$name:3\",\"function\":\"t\"}]},\"strategy\":\"$strategy\",\"stats\":$stats}"
    exit 1 ;;
  replayable)
    echo "{\"verdict\":\"violation\",\"reason\":null,\"violation\":{\"kind\":\"reach_error\"},\"witness\":{\"format\":\"agx-witness\",\"version\":1,\"program\":\"$name\",\"data_model\":\"ilp32\",\"uninit\":\"zero\",\"inputs\":[],\"schedule\":[0,1,1]},\"strategy\":\"$strategy\",\"stats\":$stats}"
    exit 1 ;;
  race)
    # A no-data-race task: verify must check races alone.
    case "$all_args" in
      *"--check race --no-assertions"*) ;;
      *) echo "fake: a race task without --check race --no-assertions: $all_args" >&2; exit 2 ;;
    esac
    echo "{\"verdict\":\"violation\",\"reason\":null,\"violation\":{\"kind\":\"data_race\",\"thread\":1,\"location\":\"$name:3\"},\"witness\":null,\"strategy\":\"$strategy\",\"stats\":$stats}"
    exit 1 ;;
  unknown)
    echo "{\"verdict\":\"unknown\",\"reason\":\"unwind bound 2 hit\",\"violation\":null,\"witness\":null,\"strategy\":\"$strategy\",\"stats\":$stats}"
    exit 3 ;;
  slow) sleep 60; exit 0 ;;
  hog) head -c 300000000 /dev/zero | tail -c 250000000 >/dev/null || exit 4 ;;
  unsupported) echo "error: unsupported: $name:1: inline assembly" >&2; exit 2 ;;
  crash) kill -SEGV $$ ;;
esac
echo "fake: no FAKE mode in $src" >&2
exit 2
"#;

const UNREACH_CALL: &str = "CHECK( init(main()), LTL(G ! call(reach_error())) )\n";
const NO_DATA_RACE: &str = "CHECK( init(main()), LTL(G ! data-race) )\n";

/// A fresh directory for one test, with the fake verify in it.
struct Sandbox {
    dir: PathBuf,
}

impl Sandbox {
    fn new(name: &str) -> Sandbox {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("bench-{name}"));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("properties")).unwrap();
        fs::write(dir.join("properties/unreach-call.prp"), UNREACH_CALL).unwrap();
        fs::write(dir.join("properties/no-data-race.prp"), NO_DATA_RACE).unwrap();
        let fake = dir.join("fake-agx");
        fs::write(&fake, FAKE_VERIFY).unwrap();
        let mut perms = fs::metadata(&fake).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
        fs::set_permissions(&fake, perms).unwrap();
        Sandbox { dir }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.join(rel)
    }

    /// `folder/stem.yml` naming `stem.i` and `folder/stem.c` holding the fake mode.
    fn task(&self, folder: &str, stem: &str, property: &str, expected: bool, mode: &str) {
        fs::create_dir_all(self.path(folder)).unwrap();
        let yml = format!(
            "format_version: '2.0'\n\ninput_files: '{stem}.i'\n\nproperties:\n  \
             - property_file: ../properties/{property}.prp\n    expected_verdict: {expected}\n\n\
             options:\n  language: C\n  data_model: ILP32\n"
        );
        fs::write(self.path(&format!("{folder}/{stem}.yml")), yml).unwrap();
        let source = format!(
            "// FAKE: {mode}\nvoid reach_error();\nint main() {{ return 0; }}\nint x;\n  x = 1;\n"
        );
        fs::write(self.path(&format!("{folder}/{stem}.c")), source).unwrap();
    }

    fn agx(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_agx"))
            .args(args)
            .arg("--agx-command")
            .arg(self.path("fake-agx"))
            .current_dir(&self.dir)
            .output()
            .unwrap()
    }

    fn results(&self, rel: &str) -> serde_json::Value {
        serde_json::from_str(&fs::read_to_string(self.path(rel)).unwrap()).unwrap()
    }
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn record<'a>(results: &'a serde_json::Value, task: &str) -> &'a serde_json::Value {
    results["records"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["task"] == task)
        .unwrap_or_else(|| panic!("no record for {task}"))
}

#[test]
fn scores_a_corpus_and_prints_wrong_verdicts_first() {
    let s = Sandbox::new("score");
    s.task(
        "pthread",
        "correct_false",
        "unreach-call",
        false,
        "violation",
    );
    s.task("pthread", "correct_true", "unreach-call", true, "safe");
    s.task("pthread", "gives_up", "unreach-call", true, "unknown");
    s.task(
        "pthread-atomic",
        "wrong_false",
        "unreach-call",
        true,
        "violation",
    );
    s.task("pthread-atomic", "racy", "no-data-race", false, "race");
    s.task(
        "pthread-atomic",
        "overflows",
        "no-overflow",
        false,
        "violation",
    );
    s.task(
        "pthread-atomic",
        "asm",
        "unreach-call",
        false,
        "unsupported",
    );
    s.task("pthread-atomic", "crashes", "unreach-call", false, "crash");
    let o = s.agx(&[
        "bench", ".", "--jobs", "2", "--out", "r.json", "--csv", "r.csv",
    ]);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "a wrong verdict exits 1:\n{text}");
    assert!(text.starts_with("WRONG VERDICTS (1)\n"), "{text}");
    let first_section = text.split("\n\n").next().unwrap();
    assert!(
        first_section.contains("pthread-atomic/wrong_false"),
        "{text}"
    );
    // +1 +2 -16 +1 (the race); unknown, unsupported, not supported and error score 0.
    let total = text
        .lines()
        .find(|l| l.trim_start().starts_with("TOTAL"))
        .unwrap();
    assert!(total.trim_end().ends_with(" -12"), "{total}");

    let r = s.results("r.json");
    assert_eq!(r["schema"], "agx-bench-results");
    assert_eq!(r["schema_version"], 2);
    assert_eq!(r["settings"]["mode"], "tasks");
    assert_eq!(r["records"].as_array().unwrap().len(), 8);
    let status = |task: &str| record(&r, task)["status"].as_str().unwrap().to_string();
    assert_eq!(status("pthread/correct_false"), "false");
    assert_eq!(status("pthread/correct_true"), "true");
    assert_eq!(status("pthread/gives_up"), "unknown");
    assert_eq!(status("pthread-atomic/wrong_false"), "false");
    assert_eq!(status("pthread-atomic/racy"), "false");
    assert_eq!(status("pthread-atomic/overflows"), "not-supported");
    assert_eq!(status("pthread-atomic/asm"), "unsupported");
    assert_eq!(status("pthread-atomic/crashes"), "error");
    let wrong = record(&r, "pthread-atomic/wrong_false");
    assert_eq!(wrong["outcome"], "wrong-false");
    assert_eq!(wrong["score"], -16);
    // The .i is absent: the .c of the same stem ran.
    let ok = record(&r, "pthread/correct_false");
    assert!(ok["source"].as_str().unwrap().ends_with("correct_false.c"));
    assert_eq!(ok["runs"], 5);
    assert!(ok["peak_memory_kib"].as_u64().unwrap() > 0);
    // The task of an unsupported property was never run.
    assert_eq!(
        record(&r, "pthread-atomic/overflows")["peak_memory_kib"],
        serde_json::Value::Null
    );

    let csv = fs::read_to_string(s.path("r.csv")).unwrap();
    assert_eq!(csv.lines().count(), 9, "a header and a line per task");
}

#[test]
fn results_round_trip_through_compare() {
    let s = Sandbox::new("compare");
    s.task("pthread", "a", "unreach-call", false, "violation");
    s.task("pthread", "b", "unreach-call", true, "safe");
    let o = s.agx(&["bench", "pthread", "--out", "old.json", "--summary"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(
        !stdout(&o).contains("TASKS"),
        "--summary hides the task table"
    );
    // Break one task and rerun.
    fs::write(s.path("pthread/b.c"), "// FAKE: unknown\n").unwrap();
    let o = s.agx(&["bench", "pthread", "--out", "new.json"]);
    assert_eq!(o.status.code(), Some(0));

    let same = s.agx(&["bench", "--compare", "old.json", "old.json"]);
    let text = stdout(&same);
    assert_eq!(same.status.code(), Some(0), "{text}");
    assert!(text.contains("LOST (was correct) (0)"), "{text}");
    let median = text.lines().find(|l| l.contains("MEDIAN")).unwrap();
    assert_eq!(median.matches("1.00x").count(), 2, "{median}");

    let changed = s.agx(&["bench", "--compare", "old.json", "new.json"]);
    let text = stdout(&changed);
    assert!(text.contains("LOST (was correct) (1)"), "{text}");
    let lost = &text[text.find("LOST").unwrap()..];
    assert!(lost.lines().nth(2).unwrap().contains("pthread/b"), "{text}");
    assert!(text.contains("3 -> 1"), "score 1+2 -> 1:\n{text}");
}

#[test]
fn kills_a_task_at_the_time_limit() {
    let s = Sandbox::new("timeout");
    s.task("pthread", "slow", "unreach-call", true, "slow");
    let start = Instant::now();
    let o = s.agx(&["bench", "pthread", "--timeout", "1", "--out", "r.json"]);
    // Killed at 1 s + 2 s grace + 10 %, far before the fake's 60 s sleep ends.
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(o.status.code(), Some(0));
    let r = s.results("r.json");
    let slow = record(&r, "pthread/slow");
    assert_eq!(slow["status"], "timeout");
    assert_eq!(slow["score"], 0);
    assert!(slow["wall_time_ms"].as_u64().unwrap() >= 3000);
    assert!(stdout(&o).contains("TIMEOUT"));
}

#[test]
fn a_task_past_the_memory_limit_is_out_of_memory() {
    let s = Sandbox::new("memory");
    s.task("pthread", "hog", "unreach-call", true, "hog");
    let o = s.agx(&["bench", "pthread", "--memory", "100", "--out", "r.json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let r = s.results("r.json");
    let hog = record(&r, "pthread/hog");
    assert_eq!(hog["status"], "out-of-memory", "{hog}");
    assert_eq!(hog["score"], 0);
    assert!(stdout(&o).contains("OUT OF MEMORY"));
}

#[test]
fn strategies_side_by_side_with_ratios() {
    let s = Sandbox::new("strategies");
    s.task("pthread", "a", "unreach-call", false, "violation");
    s.task("pthread", "b", "unreach-call", true, "safe");
    let o = s.agx(&[
        "bench",
        "pthread",
        "--strategy",
        "baseline,dpor",
        "--out",
        "r.json",
    ]);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{text}");
    assert!(text.contains("FOLDERS (strategy baseline)"), "{text}");
    assert!(text.contains("FOLDERS (strategy dpor)"), "{text}");
    let ratios = &text[text.find("RATIOS dpor / baseline").unwrap()..];
    let median = ratios.lines().find(|l| l.contains("MEDIAN")).unwrap();
    assert!(median.contains("0.40x"), "runs 2 vs 5: {median}");
    let r = s.results("r.json");
    assert_eq!(r["records"].as_array().unwrap().len(), 4);
    assert_eq!(
        r["settings"]["strategies"],
        serde_json::json!(["baseline", "dpor"])
    );
    assert_eq!(r["records"][1]["strategy_used"], "dpor");
}

#[test]
fn hunt_mode_compares_hunt_with_verify_and_flags_contradictions() {
    let s = Sandbox::new("hunt");
    s.task("pthread", "found", "unreach-call", false, "violation");
    s.task("pthread", "misled", "unreach-call", false, "misled");
    s.task("pthread", "hard", "unreach-call", false, "unknown");
    s.task("pthread", "fine", "unreach-call", true, "safe");
    let o = s.agx(&["bench", "pthread", "--hunt", "-j", "2", "--out", "r.json"]);
    let text = stdout(&o);
    assert_eq!(
        o.status.code(),
        Some(1),
        "a refuted violation exits 1:\n{text}"
    );
    assert!(
        text.starts_with("WRONG RESULTS (1)\n  pthread/misled: hunt REFUTED"),
        "{text}"
    );
    let row = |task: &str| text.lines().find(|l| l.contains(task)).unwrap().to_string();
    assert!(row("pthread/found").contains("CONFIRMED"), "{text}");
    assert!(row("pthread/hard").contains("UNKNOWN"), "{text}");
    assert!(
        !text.contains("pthread/fine"),
        "expected-true tasks are not hunted"
    );
    assert!(text.contains("both solved 1"), "{text}");
    let r = s.results("r.json");
    assert_eq!(r["settings"]["mode"], "hunt");
    assert_eq!(r["records"].as_array().unwrap().len(), 3);
    let hunts = r["hunt"].as_array().unwrap();
    assert_eq!(hunts.len(), 3);
    let found = hunts.iter().find(|h| h["task"] == "pthread/found").unwrap();
    assert_eq!(found["status"], "confirmed");
    assert_eq!(found["states"], 3);
    let shown = s.agx(&["bench", "--show", "r.json"]);
    assert_eq!(stdout(&shown), text, "--show prints the saved run's report");
    assert_eq!(shown.status.code(), Some(1));

    let o = s.agx(&["bench", "pthread/found.yml", "--hunt"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
}

#[test]
fn paper_table2_mode_runs_the_mapped_tasks_beside_the_paper() {
    let s = Sandbox::new("paper");
    s.task("pthread", "fib_bench-2", "unreach-call", false, "violation");
    s.task("pthread", "lazy01", "unreach-call", false, "violation");
    s.task("pthread", "unrelated", "unreach-call", false, "violation");
    let o = s.agx(&["bench", "--paper-table2", ".", "--out", "r.json"]);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{text}");
    let table = &text[text.find("PAPER TABLE 2").unwrap()..];
    // Fake runs: 5+1 for baseline and dpor+ag, 2+1 for dpor.
    let fib = table
        .lines()
        .find(|l| l.contains("fibbenchfalse1"))
        .unwrap();
    assert!(fib.contains("pthread/fib_bench-2"), "{fib}");
    assert!(fib.trim_end().ends_with("yes"), "6 runs <= 15: {fib}");
    let lazy = table.lines().find(|l| l.contains("lazy01false")).unwrap();
    assert!(lazy.contains("no: runs 6 > 3"), "{lazy}");
    let absent = table.lines().find(|l| l.contains("indexertrue")).unwrap();
    assert!(absent.contains("not run"), "{absent}");
    assert!(
        table.contains("goal met: 1 of 21 rows with a task"),
        "{table}"
    );
    assert!(!text.contains("unrelated"), "only the mapped tasks run");
    let r = s.results("r.json");
    assert_eq!(r["settings"]["mode"], "paper-table2");
    assert_eq!(
        r["settings"]["strategies"],
        serde_json::json!(["baseline", "dpor", "dpor+ag"])
    );
    assert_eq!(r["records"].as_array().unwrap().len(), 6);
    let rows = r["paper_table2"].as_array().unwrap();
    assert_eq!(rows.len(), 50);
    assert_eq!(rows[0]["goal"], "met");
    assert_eq!(rows[0]["dpor_ag"]["runs"], 15);
    let shown = stdout(&s.agx(&["bench", "--show", "r.json"]));
    assert!(
        shown.ends_with(table),
        "--show prints the saved run's table"
    );
}

#[test]
fn fixtures_with_verify_directives_are_tasks() {
    let s = Sandbox::new("fixtures");
    fs::create_dir_all(s.path("verify")).unwrap();
    fs::write(
        s.path("verify/bug.c"),
        "// FAKE: violation\n// agx-verify: violation assertion --unwind 2\nint main() { return 0; }\n",
    )
    .unwrap();
    fs::write(s.path("verify/plain.c"), "int main() { return 0; }\n").unwrap();
    let o = s.agx(&["bench", "verify", "--out", "r.json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let r = s.results("r.json");
    assert_eq!(
        r["records"].as_array().unwrap().len(),
        1,
        "plain.c is no task"
    );
    assert_eq!(record(&r, "verify/bug")["outcome"], "correct-false");
}

#[test]
fn no_tasks_is_an_error() {
    let s = Sandbox::new("empty");
    let o = s.agx(&["bench", "properties"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no tasks"));
}

#[test]
fn svcomp_prints_the_verdict_line_and_a_witness() {
    let s = Sandbox::new("svcomp");
    s.task("pthread", "bug", "unreach-call", false, "violation");
    s.task("pthread", "fine", "unreach-call", true, "safe");
    let prp = "properties/unreach-call.prp";
    let o = s.agx(&[
        "svcomp",
        "--property",
        prp,
        "pthread/bug.yml",
        "--witness-out",
        "w.yml",
    ]);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "FALSE exits 1: {text}");
    assert_eq!(text.lines().last(), Some("Result: FALSE(unreach-call)"));
    let yaml = fs::read_to_string(s.path("w.yml")).unwrap();
    schemas::check_witness(&yaml);
    let witness: serde_norway::Value = serde_norway::from_str(&yaml).unwrap();
    let entry = &witness[0];
    assert_eq!(entry["entry_type"], "violation_sequence");
    let segments = entry["content"].as_sequence().unwrap();
    assert_eq!(segments.len(), 3);
    let target = &segments[2]["segment"][0]["waypoint"];
    assert_eq!(target["type"], "target");
    assert_eq!(target["thread_id"], 1);
    assert_eq!(target["location"]["file_name"], "pthread/bug.c");

    // An agx witness (no locations) is replayed with `agx run` for its trace.
    s.task("pthread", "replay", "unreach-call", false, "replayable");
    let o = s.agx(&[
        "svcomp",
        "--property",
        prp,
        "pthread/replay.yml",
        "--witness-out",
        "r.yml",
    ]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let yaml = fs::read_to_string(s.path("r.yml")).unwrap();
    schemas::check_witness(&yaml);
    let witness: serde_norway::Value = serde_norway::from_str(&yaml).unwrap();
    let segments = witness[0]["content"].as_sequence().unwrap();
    let lines: Vec<_> = segments
        .iter()
        .map(|seg| {
            seg["segment"][0]["waypoint"]["location"]["line"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(lines, vec![5, 2, 3], "the step in another file is left out");

    let o = s.agx(&["svcomp", "--property", prp, "pthread/fine.c"]);
    assert_eq!(stdout(&o).lines().last(), Some("Result: TRUE"));
    assert_eq!(o.status.code(), Some(0), "TRUE exits 0");

    s.task("pthread", "racy", "no-data-race", false, "race");
    let o = s.agx(&[
        "svcomp",
        "--property",
        "properties/no-data-race.prp",
        "pthread/racy.yml",
    ]);
    assert_eq!(
        stdout(&o).lines().last(),
        Some("Result: FALSE(no-data-race)"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(o.status.code(), Some(1), "FALSE exits 1");

    fs::write(
        s.path("properties/no-overflow.prp"),
        "CHECK( init(main()), LTL(G ! overflow) )\n",
    )
    .unwrap();
    let o = s.agx(&[
        "svcomp",
        "--property",
        "properties/no-overflow.prp",
        "pthread/bug.yml",
    ]);
    assert_eq!(o.status.code(), Some(3), "UNKNOWN exits 3");
    assert_eq!(stdout(&o).lines().last(), Some("Result: UNKNOWN"));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not supported"));
}

#[test]
fn an_interrupted_bench_keeps_and_reports_the_runs_that_finished() {
    let s = Sandbox::new("interrupt");
    s.task("pthread", "fast", "unreach-call", true, "safe");
    s.task("pthread", "slow", "unreach-call", true, "slow");
    let start = Instant::now();
    let child = Command::new(env!("CARGO_BIN_EXE_agx"))
        .args([
            "bench",
            "pthread",
            "-j",
            "2",
            "--timeout",
            "100",
            "--out",
            "r.json",
        ])
        .arg("--agx-command")
        .arg(s.path("fake-agx"))
        .current_dir(&s.dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The fast task's record is saved as soon as it finishes, while the slow one runs.
    let saved = loop {
        let text = fs::read_to_string(s.path("r.json")).unwrap_or_default();
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) {
            break v;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "r.json never written"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(record(&saved, "pthread/fast")["status"], "true");
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let o = child.wait_with_output().unwrap();
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "{:?}",
        start.elapsed()
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted: 1 of 2 runs finished"), "{err}");
    assert!(stdout(&o).contains("pthread/fast"), "{}", stdout(&o));
    let r = s.results("r.json");
    let records = r["records"].as_array().unwrap();
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(records[0]["task"], "pthread/fast");
    assert!(!s.path("r.json.partial").exists());
}

#[test]
fn memory_limits_below_what_verify_needs_are_refused_and_small_ones_work() {
    let root = env!("CARGO_MANIFEST_DIR");
    let fixture = format!("{root}/fixtures/verify/type_b_logging.c");
    let run = |memory: &str| {
        Command::new(env!("CARGO_BIN_EXE_agx"))
            .args(["bench", &fixture, "--timeout", "60", "--memory", memory])
            .args(["--out", "/dev/null"])
            .output()
            .unwrap()
    };
    let o = run("128");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("minimum of 256 MiB"), "{err}");
    // 512 MiB used to turn every task into ERROR ("cannot start the search thread": its
    // 2 GiB stack did not fit).
    let o = run("512");
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(!out.contains("ERROR"), "{out}");
    assert!(out.contains("TRUE"), "{out}");
}

/// A search whose memory grows fast (fk2012: ~170 KB per state) under the bench's
/// address-space limit used to end in an allocation failure (OUT OF MEMORY; a signal 11
/// inside Z3 before): the 2 GiB search stack and the allocator's arenas put the address
/// space ~2 GiB ahead of resident memory, so the resident budget never fired. The search
/// now stops near the limit itself and answers UNKNOWN naming `memory`.
#[test]
fn a_search_near_the_address_space_limit_ends_unknown_not_out_of_memory() {
    let Some(corpus) = corpus_gate::corpus_or_skip(
        "a_search_near_the_address_space_limit_ends_unknown_not_out_of_memory",
    ) else {
        return;
    };
    let task = corpus.join("pthread-lit/fk2012.yml");
    let o = Command::new(env!("CARGO_BIN_EXE_agx"))
        .args(["bench", task.to_str().unwrap(), "--timeout", "60"])
        .args(["--memory", "1024", "--out", "/dev/null"])
        .output()
        .unwrap();
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    let row = out
        .lines()
        .find(|l| l.contains("fk2012"))
        .unwrap_or_default();
    assert!(row.contains("UNKNOWN"), "{out}");
    assert!(
        !out.contains("OUT OF MEMORY") && !out.contains("ERROR"),
        "{out}"
    );
}

/// The witness check rejects what the old writer produced: an unquoted creation time,
/// `thread_id` under format 2.0, an input as a C expression, a column of 0.
#[test]
fn the_witness_schema_rejects_what_validators_reject() {
    let good = "- entry_type: violation_sequence
  metadata:
    format_version: 'VERSION'
    uuid: 1b4e28ba-2fa1-4d2b-8b5f-2a6c2e0f3c71
    creation_time: TIME
    producer: {name: agx, version: 0.1.0}
    task:
      input_files: [a.c]
      input_file_hashes: {a.c: 3a5f000000000000000000000000000000000000000000000000000000000000}
      specification: CHECK( init(main()), LTL(G ! call(reach_error())) )
      data_model: ILP32
      language: C
  content:
  - segment:
    - waypoint:
        type: function_return
        action: follow
        location: {file_name: a.c, line: 3, column: COLUMN}
        constraint: {value: \\result == 5, format: FORMAT}
        thread_id: 0
  - segment:
    - waypoint: {type: target, action: follow, location: {file_name: a.c, line: 4}, thread_id: 0}
";
    let make = |version: &str, time: &str, format: &str, column: &str| {
        good.replace("VERSION", version)
            .replace("TIME", time)
            .replace("FORMAT", format)
            .replace("COLUMN", column)
    };
    let quoted = "'2025-01-01T12:00:00Z'";
    schemas::check_witness(&make("2.2", quoted, "acsl_expression", "7"));
    let bad = [
        make("2.2", "2025-01-01T12:00:00Z", "acsl_expression", "7"),
        make("2.0", quoted, "acsl_expression", "7"),
        make("2.2", quoted, "c_expression", "7"),
        make("2.2", quoted, "acsl_expression", "0"),
        make("2.2", "'yesterday'", "acsl_expression", "7"),
    ];
    for (i, yaml) in bad.iter().enumerate() {
        let rejected = std::panic::catch_unwind(|| schemas::check_witness(yaml)).is_err();
        assert!(rejected, "bad witness {i} passed the check:\n{yaml}");
    }
}

#[test]
fn compare_peers_prints_the_goals_from_a_results_file_and_peer_tsvs() {
    let s = Sandbox::new("compare-peers");
    s.task("pthread", "a", "unreach-call", false, "violation");
    s.task("pthread", "b", "unreach-call", true, "safe");
    let o = s.agx(&["bench", "pthread", "--out", "r.json", "--summary"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    fs::create_dir_all(s.path("peers")).unwrap();
    let header = "folder\tstem\texpected\ttool\tverdict\tclass\tseconds\texecutions\tnote\n";
    fs::write(
        s.path("peers/nidhugg.tsv"),
        format!(
            "{header}pthread\ta\tfalse\tnidhugg\tFALSE\tcorrect false\t30.0\t1\t\n\
             pthread\tb\ttrue\tnidhugg\tTRUE\tcorrect true\t20.0\t0\t\n"
        ),
    )
    .unwrap();
    let o = s.agx(&["bench", "--compare-peers", "r.json", "--peers", "peers"]);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{text}");
    assert!(text.contains("AGX VS PEERS (2 tasks"), "{text}");
    // a: nidhugg's FALSE sets the bar (61 s), met; b: a TRUE without executions sets none.
    assert!(text.contains("GOAL decide: 1 tasks"), "{text}");
    assert!(text.contains("agx meets 1"), "{text}");
    assert!(
        text.contains("agx decides 1 tasks no peer decides: pthread/b"),
        "{text}"
    );

    fs::write(s.path("peers/bad.tsv"), "nonsense\n").unwrap();
    let o = s.agx(&["bench", "--compare-peers", "r.json", "--peers", "peers"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("bad.tsv:1: header is not"), "{err}");
}
