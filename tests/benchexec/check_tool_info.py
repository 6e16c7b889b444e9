"""Checks agx's BenchExec tool-info module (docs/benchexec/agx_benchexec/agx.py) against
BenchExec's own API and the real agx binary: the version, the command line of a task,
and the result of real `agx svcomp` runs. Run by tests/benchexec.rs.

usage: check_tool_info.py AGX_DIR EXPECTED_VERSION WORK_DIR
Exit 77 when BenchExec is not importable (the Rust test reports that as skipped)."""

import os
import subprocess
import sys

try:
    import benchexec.result as result
    from benchexec.tools.template import BaseTool2
    from benchexec.util import ProcessExitCode
except ImportError:
    sys.exit(77)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "docs", "benchexec"))
from agx_benchexec import agx  # noqa: E402

agx_dir, expected_version, work = sys.argv[1:4]
tool = agx.Tool()
exe = tool.executable(BaseTool2.ToolLocator(tool_directory=agx_dir))
assert os.path.samefile(exe, os.path.join(agx_dir, "agx")), exe
assert tool.name() == "agx"
assert tool.version(exe) == expected_version, tool.version(exe)

prp = os.path.join(work, "unreach-call.prp")
with open(prp, "w") as f:
    f.write("CHECK( init(main()), LTL(G ! call(reach_error())) )\n")


def run(source, limits):
    task = BaseTool2.Task.with_files(
        [os.path.join(ROOT, source)], property_file=prp, options={"data_model": "ILP32"}
    )
    cmd = tool.cmdline(exe, [], task, limits)
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    output = BaseTool2.RunOutput(done.stdout.splitlines())
    exit_code = ProcessExitCode.from_raw(done.returncode << 8)
    return cmd, tool.determine_result(BaseTool2.Run(cmd, exit_code, output, None))


limits = BaseTool2.ResourceLimits(cputime=100)
cmd, answer = run("fixtures/verify/race_counter.c", limits)
assert cmd[1:] == [
    "svcomp", "--property", prp, "--data-model", "ilp32", "--timeout", "90",
    os.path.join(ROOT, "fixtures/verify/race_counter.c"),
], cmd
assert answer == result.RESULT_FALSE_REACH, answer
assert result.get_result_category({}, answer, None) is not None
_, answer = run("fixtures/verify/lock_counter.c", limits)
assert answer == result.RESULT_TRUE_PROP, answer


def answer_of(lines, code=0):
    run = BaseTool2.Run([], ProcessExitCode.from_raw(code << 8), BaseTool2.RunOutput(lines), None)
    return tool.determine_result(run)


assert answer_of(["agx: TIMEOUT: ...", "Result: UNKNOWN"], 3) == result.RESULT_UNKNOWN
assert answer_of(["Result: FALSE(no-data-race)"], 1) == result.RESULT_FALSE_DATARACE
assert answer_of(["Result: FALSE(valid-memsafety)"], 1) == "false(valid-memsafety)"
assert answer_of(["error: a.c:3: unsupported: inline assembly"], 2).startswith(result.RESULT_ERROR)
assert answer_of(["Result: MAYBE"], 0).startswith(result.RESULT_ERROR)
print("tool-info module ok")
