//! Shell completions, the man page and the licence files the package names.

use std::process::Command;

fn agx(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_agx"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn completions_for_every_shell_name_the_subcommands() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let (code, out) = agx(&["completions", shell]);
        assert_eq!(code, Some(0), "{shell}");
        assert!(
            out.contains("verify") && out.contains("hunt"),
            "{shell}: {out}"
        );
    }
    let (code, _) = agx(&["completions", "tcsh"]);
    assert_eq!(code, Some(2), "an unknown shell is a usage error");
}

#[test]
fn the_man_page_is_roff_with_every_subcommand() {
    let (code, out) = agx(&["man"]);
    assert_eq!(code, Some(0));
    assert!(out.contains(".TH agx 1"), "{out}");
    for sub in ["verify", "hunt", "svcomp", "warnings"] {
        assert!(out.contains(sub), "{sub} missing from the man page");
    }
    // The exit codes in their own section, each code as a bold tag.
    let exit = &out[out
        .find(".SH \"EXIT STATUS\"")
        .expect("an EXIT STATUS section")..];
    for code in ["0", "1", "2", "3", "130"] {
        assert!(exit.contains(&format!("\\fB{code}\\fR")), "{code}: {exit}");
    }
    assert!(!out.contains(".SH EXTRA"), "{out}");
}

#[test]
fn help_lists_the_exit_codes() {
    let (code, out) = agx(&["--help"]);
    assert_eq!(code, Some(0));
    let codes = &out[out.find("Exit codes:").expect("exit codes in --help")..];
    for line in [
        "0  no violation",
        "1  a violation found",
        "2  a usage or input error",
        "3  UNKNOWN",
    ] {
        assert!(codes.contains(line), "{line}: {codes}");
    }
}

#[test]
fn licence_files_match_the_package_licence() {
    let root = env!("CARGO_MANIFEST_DIR");
    let manifest = std::fs::read_to_string(format!("{root}/Cargo.toml")).unwrap();
    assert!(manifest.contains(r#"license = "MIT OR Apache-2.0""#));
    let mit = std::fs::read_to_string(format!("{root}/LICENSE-MIT")).unwrap();
    assert!(mit.contains("Permission is hereby granted, free of charge"));
    let apache = std::fs::read_to_string(format!("{root}/LICENSE-APACHE")).unwrap();
    assert!(apache.contains("Apache License") && apache.contains("Version 2.0, January 2004"));
}

#[test]
fn verdicts_are_plain_text_when_stdout_is_not_a_terminal() {
    let out = Command::new(env!("CARGO_BIN_EXE_agx"))
        .args(["verify", "fixtures/verify/race_counter.c"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("NO_COLOR")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("VIOLATION: "), "{text}");
    assert!(
        !text.contains('\u{1b}'),
        "escape codes in piped output: {text:?}"
    );
}
