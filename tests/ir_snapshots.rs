//! Snapshots of `agx ir` on a few fixtures: any change of the lowering or of the IR's text
//! form shows up as a reviewable diff (`INSTA_UPDATE=always cargo test --test ir_snapshots`
//! or `cargo insta review` to accept one).

mod common;

use common::{agx_bin, process, project_root};
use std::time::Duration;

/// `agx ir FILE ARGS` from the project root (so the IR names files relatively), stdout.
fn ir_text(fixture: &str, extra: &[&str]) -> String {
    let mut args = vec!["ir".to_string(), fixture.to_string()];
    args.extend(extra.iter().map(|s| s.to_string()));
    let run = process::run(&agx_bin(), &args, &project_root(), Duration::from_secs(60));
    assert_eq!(
        run.code,
        Some(0),
        "agx ir {fixture} failed ({}): {}",
        run.ending(),
        run.stderr
    );
    run.stdout
}

#[test]
fn ir_of_a_data_race() {
    insta::assert_snapshot!(ir_text("fixtures/conc/race_assert.c", &[]));
}

#[test]
fn ir_of_short_circuit_operators() {
    insta::assert_snapshot!(ir_text("fixtures/lang/short_circuit.c", &[]));
}

#[test]
fn ir_of_static_initializers() {
    insta::assert_snapshot!(ir_text("fixtures/lang/globals_init.c", &[]));
}

#[test]
fn ir_of_mutex_operations() {
    insta::assert_snapshot!(ir_text("fixtures/conc/trylock.c", &[]));
}

#[test]
fn ir_of_atomic_functions() {
    insta::assert_snapshot!(ir_text("fixtures/conc/atomic_functions.c", &[]));
}

#[test]
fn ir_of_function_pointers_lp64() {
    insta::assert_snapshot!(ir_text(
        "fixtures/lang/function_pointers.c",
        &["--data-model", "lp64"]
    ));
}

#[test]
fn ir_of_switch_with_fallthrough() {
    insta::assert_snapshot!(ir_text("fixtures/lang/switch.c", &[]));
}

#[test]
fn ir_of_sscanf_as_inputs() {
    insta::assert_snapshot!(ir_text("fixtures/lang/sscanf.c", &[]));
}
