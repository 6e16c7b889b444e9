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

use std::io::{self, Read};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

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
            End::TimedOut => (None, Some(libc::SIGKILL)),
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

extern "C" fn on_interrupt(signal: libc::c_int) {
    if INTERRUPTED.swap(true, Ordering::SeqCst) {
        // The second signal: the default action (the process ends).
        // SAFETY: signal and raise are async-signal-safe.
        unsafe {
            libc::signal(signal, libc::SIG_DFL);
            libc::raise(signal);
        }
    }
}

/// Catches SIGINT and SIGTERM: the first sets [`interrupted`], a second ends the process.
pub fn install_interrupt_handler() -> io::Result<()> {
    for signal in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: an all-zero sigaction is valid; the handler only touches an atomic and
        // calls async-signal-safe functions.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_interrupt as extern "C" fn(libc::c_int) as usize;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            if libc::sigaction(signal, &action, std::ptr::null_mut()) != 0 {
                return Err(io::Error::last_os_error());
            }
        }
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
    // SAFETY: the closure runs in the forked child before exec and calls only
    // async-signal-safe functions (setrlimit, prctl); it allocates nothing.
    unsafe {
        command.pre_exec(move || prepare_child(memory));
    }
    let start = Instant::now();
    let mut child = command.spawn()?;
    let pid = libc::pid_t::try_from(child.id())
        .map_err(|_| io::Error::other("child process id out of range"))?;
    let stdout = child.stdout.take().map(spawn_reader);
    let stderr = child.stderr.take().map(spawn_reader);

    let wait = wait_for_exit(pid, start + limits.wall)?;
    // The leader is a zombie or still running: its group id is still ours to kill.
    // SAFETY: kill has no memory-safety preconditions.
    unsafe {
        libc::kill(-pid, libc::SIGKILL);
    }
    let (status, usage) = reap(pid)?;
    let wall = start.elapsed();
    if wait == Wait::Interrupted {
        return Err(interrupted_error());
    }
    let end = if wait == Wait::Deadline {
        End::TimedOut
    } else if libc::WIFSIGNALED(status) {
        End::Signaled(libc::WTERMSIG(status))
    } else {
        End::Exited(libc::WEXITSTATUS(status))
    };
    Ok(Finished {
        end,
        stdout: join_reader(stdout),
        stderr: join_reader(stderr),
        wall,
        cpu: timeval(usage.ru_utime) + timeval(usage.ru_stime),
        peak_rss_kib: u64::try_from(usage.ru_maxrss).unwrap_or(0),
    })
}

/// In the child before exec: the address-space limit and death with the parent.
fn prepare_child(memory_bytes: Option<u64>) -> io::Result<()> {
    if let Some(bytes) = memory_bytes {
        let limit = libc::rlimit {
            rlim_cur: bytes as libc::rlim_t,
            rlim_max: bytes as libc::rlim_t,
        };
        // SAFETY: `limit` is a valid rlimit for the duration of the call.
        if unsafe { libc::setrlimit(libc::RLIMIT_AS, &limit) } != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    // SAFETY: PR_SET_PDEATHSIG takes a signal number; no pointers involved.
    if unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Polls until the child has exited (without reaping it), `deadline` passes or the bench
/// is interrupted.
fn wait_for_exit(pid: libc::pid_t, deadline: Instant) -> io::Result<Wait> {
    let mut pause = Duration::from_millis(1);
    loop {
        // SAFETY: an all-zero siginfo_t is a valid value; waitid writes into it.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
        // SAFETY: `info` is a valid, writable siginfo_t.
        let r = unsafe { libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, flags) };
        if r == -1 {
            let err = io::Error::last_os_error();
            if err.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(err);
        }
        // SAFETY: waitid filled `info`; si_pid is 0 when no child has changed state.
        if unsafe { info.si_pid() } != 0 {
            return Ok(Wait::Exited);
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

/// Reaps the child: its wait status and resource usage.
fn reap(pid: libc::pid_t) -> io::Result<(i32, libc::rusage)> {
    loop {
        let mut status = 0;
        // SAFETY: an all-zero rusage is valid; wait4 writes into both out-parameters.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: both pointers are valid and writable.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if r == pid {
            return Ok((status, usage));
        }
        let err = io::Error::last_os_error();
        if err.kind() != io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
}

fn timeval(t: libc::timeval) -> Duration {
    let secs = u64::try_from(t.tv_sec).unwrap_or(0);
    let micros = u64::try_from(t.tv_usec).unwrap_or(0);
    Duration::from_secs(secs) + Duration::from_micros(micros)
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
        assert_eq!(f.end, End::Signaled(libc::SIGSEGV));
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
    fn missing_program_is_a_spawn_error() {
        assert!(run(Command::new("/nonexistent/agx"), limits(1000)).is_err());
    }
}
