//! PAPER-CHECKS S5 (assertion-guided-symbolic-execution.md, Figure 3): k independent
//! pairs `{a_i = g_i; g_i = 10}` across two threads, with an assertion that holds however
//! the pairs interleave. DPOR explores all 2^k interleavings (each ends in a different
//! state); DPOR with predicate summaries explores one full run and k partial runs.
//! The program for k = 3 is fixtures/paper/s5/s5_k3.c; this test writes it for
//! k = 1..10 and prints the table of runs.

use analysis::FrontendOptions;
use explorer::symbolic::{self, Config, SearchOutcome, Strategy, Verdict};

/// The S5 program for `k` pairs. `main` creates both threads in one atomic step and
/// ends, so that only the pairs interleave.
fn program(k: usize) -> String {
    let mut s = String::from(
        "#include <pthread.h>\n#include <assert.h>\n\
         extern void __VERIFIER_atomic_begin(void);\nextern void __VERIFIER_atomic_end(void);\n",
    );
    let globals: Vec<String> = (1..=k).map(|i| format!("g{i} = 0")).collect();
    s += &format!("int {};\n", globals.join(", "));
    s += "void *reader(void *arg) {\n";
    for i in 1..=k {
        s += &format!("    int a{i} = g{i};\n");
    }
    for i in 1..=k {
        s += &format!("    assert(a{i} <= 10);\n");
    }
    s += "    return 0;\n}\nvoid *writer(void *arg) {\n";
    for i in 1..=k {
        s += &format!("    g{i} = 10;\n");
    }
    s +=
        "    return 0;\n}\nint main(void) {\n    pthread_t r, w;\n    __VERIFIER_atomic_begin();\n\
          \x20   pthread_create(&r, 0, reader, 0);\n    pthread_create(&w, 0, writer, 0);\n\
          \x20   __VERIFIER_atomic_end();\n    pthread_exit(0);\n}\n";
    s
}

/// The paper's counts are for summaries without the slice (whose Type A cut would end
/// every run after the last assertion).
fn verify(path: &std::path::Path, strategy: Strategy) -> SearchOutcome {
    let program =
        analysis::load_program(path, &FrontendOptions::default()).expect("S5 program lowers");
    let mut c = Config::default();
    c.strategy = strategy;
    c.slice = false;
    symbolic::verify(&program, &c).expect("verify")
}

#[test]
fn s5_dpor_grows_as_two_to_the_k_and_summaries_as_k_plus_one() {
    let dir = std::env::temp_dir().join(format!("agx-s5-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    println!(" k | dpor runs | dpor+ag full + partial");
    for k in 1..=10 {
        let path = dir.join(format!("s5_k{k}.c"));
        std::fs::write(&path, program(k)).expect("write program");
        let dpor = verify(&path, Strategy::Dpor);
        let ag = verify(&path, Strategy::DporAg);
        println!(
            "{k:>2} | {:>9} | {} + {}",
            dpor.stats.runs, ag.stats.runs, ag.stats.partial_runs
        );
        assert_eq!(dpor.verdict, Verdict::Safe, "k={k}");
        assert_eq!(ag.verdict, Verdict::Safe, "k={k}");
        assert_eq!(dpor.stats.runs, 1 << k, "k={k}: DPOR runs");
        assert_eq!(dpor.stats.partial_runs, 0, "k={k}: DPOR partial runs");
        assert_eq!(ag.stats.runs, 1, "k={k}: DPOR+AG full runs");
        assert_eq!(
            ag.stats.partial_runs, k as u64,
            "k={k}: DPOR+AG partial runs"
        );
        let _ = std::fs::remove_file(&path);
    }
    let _ = std::fs::remove_dir(&dir);
}

#[test]
fn s5_fixture_is_the_generated_program_for_k_3() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let fixture = std::fs::read_to_string(root.join("fixtures/paper/s5/s5_k3.c")).expect("fixture");
    let code: String = fixture
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(code, program(3));
}
