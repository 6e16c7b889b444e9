//! One child process under limits, measured.
//!
//! - Wall-clock limit: the child runs in its own process group; at the deadline the whole
//!   group is killed (`agx verify` may have started `gcc -E`), and the end is
//!   [`End::TimedOut`].
//! - Memory limit: `RLIMIT_AS` (address space) set in the child before `exec`, so an
//!   allocation past it fails inside the child; the `verify` module recognises the failure.
//! - The child also gets `PR_SET_PDEATHSIG = SIGKILL`, so an interrupted bench does not
//!   leave verifiers running.
//! - Peak memory is `ru_maxrss` from `wait4` (the largest resident set of the child and
//!   of its waited-for descendants), CPU time `ru_utime + ru_stime`.
//!
//! - Interruption: after [`install_interrupt_handler`], SIGINT or SIGTERM sets a flag
//!   ([`interrupted`]); a running child is then killed and [`run`] returns an error of kind
//!   [`io::ErrorKind::Interrupted`], so the bench can keep what finished and stop. A
//!   second signal ends the bench at once (the default action).
//!
//! The exit is observed with `waitid(WNOWAIT)` polling, so that the process group can be
//! killed (stray descendants) while its leader is still a zombie and its id not reusable;
//! then `wait4` reaps it and returns the resource usage.
//!
//! No hand-written `unsafe` system calls: process groups, `waitid`, `kill`, `setrlimit`
//! and `prctl` come from `rustix`, the reaping `wait4` with its resource usage from the
//! `wait4` crate, the signal handlers from `signal-hook`. The one `unsafe` left is
//! `pre_exec`, whose closure calls only `rustix`'s raw system calls (no allocation).

use rustix::process::{self as rp, Pid, Resource, Rlimit, Signal, WaitIdOptions};
use std::io::{self, Read};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::thread;
use std::time::{Duration, Instant};
use wait4::Wait4;

/// Limits for one child.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub wall: Duration,
    /// Address-space limit in bytes; `None` for no limit.
    pub memory_bytes: Option<u64>,
}

/// How the child ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    Exited(i32),
    Signaled(i32),
    /// Killed by us at the wall-clock limit.
    TimedOut,
}

/// A finished child: how it ended, what it printed, what it used.
#[derive(Clone, Debug)]
pub struct Finished {
    pub end: End,
    pub stdout: String,
    pub stderr: String,
    pub wall: Duration,
    pub cpu: Duration,
    /// Peak resident set size in KiB.
    pub peak_rss_kib: u64,
}

impl Finished {
    /// The exit code or the signal of the child, as `results.json` records them (a child
    /// killed at the time limit died of our SIGKILL).
    pub fn exit_code_and_signal(&self) -> (Option<i32>, Option<i32>) {
        match self.end {
            End::Exited(code) => (Some(code), None),
            End::Signaled(signal) => (None, Some(signal)),
            End::TimedOut => (None, Some(Signal::KILL.as_raw())),
        }
    }
}

/// Output kept per stream; the rest is read and dropped so the child never blocks.
const MAX_CAPTURE: usize = 16 << 20;

/// Longest pause between two polls for the child's exit.
const MAX_POLL: Duration = Duration::from_millis(20);

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Whether SIGINT or SIGTERM arrived since [`install_interrupt_handler`].
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// Catches SIGINT and SIGTERM: the first sets [`interrupted`], a second ends the process
/// (the signal's default action). Installing twice is harmless: the handlers are
/// registered once per process.
pub fn install_interrupt_handler() -> io::Result<()> {
    static INSTALLED: OnceLock<Result<(), io::ErrorKind>> = OnceLock::new();
    let installed = INSTALLED.get_or_init(|| register_interrupt_handlers().map_err(|e| e.kind()));
    installed.map_err(|kind| io::Error::new(kind, "installing the SIGINT/SIGTERM handlers"))
}

fn register_interrupt_handlers() -> io::Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    for signal in [SIGINT, SIGTERM] {
        // Registered first, so it sees the flag as the previous signal left it: set means
        // this is the second signal.
        signal_hook::flag::register_conditional_default(signal, &INTERRUPTED)?;
        signal_hook::flag::register(signal, &INTERRUPTED)?;
    }
    Ok(())
}

fn interrupted_error() -> io::Error {
    io::Error::new(io::ErrorKind::Interrupted, "the bench was interrupted")
}

/// How waiting for a child ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Wait {
    Exited,
    Deadline,
    Interrupted,
}

/// Runs `command` to its end or to the wall-clock limit, capturing stdout and stderr; an
/// error of kind `Interrupted` when the bench was interrupted first.
pub fn run(mut command: Command, limits: Limits) -> io::Result<Finished> {
    if interrupted() {
        return Err(interrupted_error());
    }
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let memory = limits.memory_bytes;
    // SAFETY: the closure runs in the forked child before exec and makes only raw
    // system calls (setrlimit, prctl) through rustix; it allocates nothing.
    unsafe {
        command.pre_exec(move || prepare_child(memory));
    }
    let start = Instant::now();
    let mut child = command.spawn()?;
    let pid = i32::try_from(child.id())
        .ok()
        .and_then(Pid::from_raw)
        .ok_or_else(|| io::Error::other("child process id out of range"))?;
    let stdout = child.stdout.take().map(spawn_reader);
    let stderr = child.stderr.take().map(spawn_reader);

    let wait = wait_for_exit(pid, start + limits.wall)?;
    // The leader is a zombie or still running: its group id is still ours to kill. The
    // group may be gone already (ESRCH), which is what we want.
    let _ = rp::kill_process_group(pid, Signal::KILL);
    let reaped = reap(&mut child)?;
    let wall = start.elapsed();
    if wait == Wait::Interrupted {
        return Err(interrupted_error());
    }
    let end = match (wait, reaped.status.signal(), reaped.status.code()) {
        (Wait::Deadline, _, _) => End::TimedOut,
        (_, Some(signal), _) => End::Signaled(signal),
        (_, None, code) => End::Exited(code.unwrap_or(-1)),
    };
    Ok(Finished {
        end,
        stdout: join_reader(stdout),
        stderr: join_reader(stderr),
        wall,
        cpu: reaped.rusage.utime + reaped.rusage.stime,
        // The `wait4` crate gives bytes (Linux's `ru_maxrss` is in KiB).
        peak_rss_kib: reaped.rusage.maxrss / 1024,
    })
}

/// In the child before exec: the address-space limit and death with the parent.
fn prepare_child(memory_bytes: Option<u64>) -> io::Result<()> {
    if let Some(bytes) = memory_bytes {
        let limit = Rlimit {
            current: Some(bytes),
            maximum: Some(bytes),
        };
        rp::setrlimit(Resource::As, limit)?;
    }
    rp::set_parent_process_death_signal(Some(Signal::KILL))?;
    Ok(())
}

/// Polls until the child has exited (without reaping it), `deadline` passes or the bench
/// is interrupted.
fn wait_for_exit(pid: Pid, deadline: Instant) -> io::Result<Wait> {
    let mut pause = Duration::from_millis(1);
    let options = WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT;
    loop {
        match rp::waitid(rp::WaitId::Pid(pid), options) {
            Ok(Some(_)) => return Ok(Wait::Exited),
            Ok(None) => {}
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) => return Err(e.into()),
        }
        if interrupted() {
            return Ok(Wait::Interrupted);
        }
        let now = Instant::now();
        if now >= deadline {
            return Ok(Wait::Deadline);
        }
        thread::sleep(pause.min(deadline - now));
        pause = (pause * 2).min(MAX_POLL);
    }
}

/// Reaps the child: its exit status and resource usage.
fn reap(child: &mut Child) -> io::Result<wait4::ResUse> {
    loop {
        match child.wait4() {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            reaped => return reaped,
        }
    }
}

fn spawn_reader(mut stream: impl Read + Send + 'static) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        let mut kept = Vec::new();
        let mut buf = [0u8; 8192];
        loop {
            match stream.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    let room = MAX_CAPTURE.saturating_sub(kept.len());
                    kept.extend_from_slice(&buf[..n.min(room)]);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        String::from_utf8_lossy(&kept).into_owned()
    })
}

fn join_reader(reader: Option<thread::JoinHandle<String>>) -> String {
    reader
        .and_then(|handle| handle.join().ok())
        .unwrap_or_default()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A child that ended as `end` after printing `stdout` and `stderr`.
    pub(crate) fn finished(end: End, stdout: &str, stderr: &str) -> Finished {
        Finished {
            end,
            stdout: stdout.into(),
            stderr: stderr.into(),
            wall: Duration::from_millis(5),
            cpu: Duration::from_millis(4),
            peak_rss_kib: 10_000,
        }
    }

    fn sh(script: &str) -> Command {
        let mut c = Command::new("sh");
        c.arg("-c").arg(script);
        c
    }

    fn limits(wall_ms: u64) -> Limits {
        Limits {
            wall: Duration::from_millis(wall_ms),
            memory_bytes: None,
        }
    }

    #[test]
    fn captures_output_and_exit_code() {
        let f = run(sh("echo out; echo err >&2; exit 3"), limits(10_000)).unwrap();
        assert_eq!(f.end, End::Exited(3));
        assert_eq!(f.stdout, "out\n");
        assert_eq!(f.stderr, "err\n");
    }

    #[test]
    fn kills_at_the_deadline_with_descendants() {
        // The background sleep keeps the pipes open: only killing the group ends it.
        let f = run(sh("sleep 30 & sleep 30; echo never"), limits(300)).unwrap();
        assert_eq!(f.end, End::TimedOut);
        assert!(f.wall < Duration::from_secs(10), "{:?}", f.wall);
        assert_eq!(f.stdout, "");
    }

    #[test]
    fn reports_signals() {
        let f = run(sh("kill -SEGV $$"), limits(10_000)).unwrap();
        assert_eq!(f.end, End::Signaled(Signal::SEGV.as_raw()));
    }

    #[test]
    fn sets_the_address_space_limit() {
        let l = Limits {
            wall: Duration::from_secs(10),
            memory_bytes: Some(512 << 20),
        };
        let f = run(sh("ulimit -v"), l).unwrap();
        assert_eq!(f.stdout.trim(), (512 * 1024).to_string());
    }

    #[test]
    fn measures_peak_memory_of_descendants() {
        let f = run(
            sh("head -c 30000000 /dev/zero | tail -c 20000000 >/dev/null"),
            limits(20_000),
        )
        .unwrap();
        assert_eq!(f.end, End::Exited(0));
        assert!(f.peak_rss_kib >= 15_000, "peak {} KiB", f.peak_rss_kib);
    }

    #[test]
    fn installing_the_interrupt_handler_twice_is_harmless() {
        install_interrupt_handler().unwrap();
        install_interrupt_handler().unwrap();
        assert!(!interrupted());
    }

    #[test]
    fn missing_program_is_a_spawn_error() {
        assert!(run(Command::new("/nonexistent/agx"), limits(1000)).is_err());
    }
}
