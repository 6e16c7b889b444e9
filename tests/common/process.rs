//! Running a child process with a time limit and capturing its output.

use std::io::Read;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// What a finished (or killed) child did.
#[derive(Debug)]
pub struct Finished {
    /// `None` when the child was killed by a signal (a crash, or our time limit).
    pub code: Option<i32>,
    /// The signal that ended the child, if one did (Unix only).
    pub signal: Option<i32>,
    pub timed_out: bool,
    pub stdout: String,
    pub stderr: String,
}

impl Finished {
    /// One line saying how the process ended, for test messages.
    pub fn ending(&self) -> String {
        match (self.timed_out, self.code, self.signal) {
            (true, _, _) => "timed out".to_string(),
            (_, Some(c), _) => format!("exit code {c}"),
            (_, None, Some(s)) => format!("killed by signal {s}"),
            (_, None, None) => "ended without an exit code".to_string(),
        }
    }
}

/// Runs `program args` in `cwd`, killing it after `limit`. Output is read on threads so
/// that a child filling a pipe cannot block.
pub fn run(program: &Path, args: &[String], cwd: &Path, limit: Duration) -> Finished {
    let mut child = Command::new(program)
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", program.display()));
    let out = reader(child.stdout.take());
    let err = reader(child.stderr.take());
    let start = Instant::now();
    let mut timed_out = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() > limit => {
                timed_out = true;
                // The child may have ended since try_wait; either way wait reaps it.
                let _ = child.kill();
                break child.wait().expect("wait for killed child");
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => panic!("waiting for {}: {e}", program.display()),
        }
    };
    Finished {
        code: status.code(),
        signal: signal_of(status),
        timed_out,
        stdout: out.join().expect("stdout reader"),
        stderr: err.join().expect("stderr reader"),
    }
}

fn reader<R: Read + Send + 'static>(pipe: Option<R>) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut p) = pipe {
            let _ = p.read_to_end(&mut bytes);
        }
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

#[cfg(unix)]
fn signal_of(status: ExitStatus) -> Option<i32> {
    use std::os::unix::process::ExitStatusExt;
    status.signal()
}

#[cfg(not(unix))]
fn signal_of(_status: ExitStatus) -> Option<i32> {
    None
}
