# BenchExec tool-info module for agx (https://github.com/sosy-lab/benchexec).
#
# agx finds concurrency bugs in pthreads C programs; `agx svcomp` answers one SV-COMP
# task with `Result: TRUE|FALSE(<property>)|UNKNOWN` as its last line of stdout.
# Use it with `tool="agx_benchexec.agx"` and this folder on PYTHONPATH, or copy it to
# benchexec/tools/agx.py (then `tool="agx"`). See docs/BENCHEXEC.md.
#
# SPDX-License-Identifier: MIT OR Apache-2.0

import benchexec.result as result
import benchexec.tools.template


class Tool(benchexec.tools.template.BaseTool2):
    """agx: abstraction-guided symbolic execution for pthreads C programs."""

    RESULT_PREFIX = "Result: "

    def executable(self, tool_locator):
        return tool_locator.find_executable("agx")

    def name(self):
        return "agx"

    def version(self, executable):
        # `agx --version` prints `agx X.Y.Z`.
        return self._version_from_tool(executable, line_prefix="agx ")

    def cmdline(self, executable, options, task, rlimits):
        cmd = [executable, "svcomp"]
        if task.property_file:
            cmd += ["--property", task.property_file]
        data_model = (task.options or {}).get("data_model")
        if data_model:
            cmd += ["--data-model", data_model.lower()]
        # agx stops itself a little before BenchExec's limit, so that it can still
        # answer UNKNOWN (naming the timeout) instead of being killed.
        limit = rlimits.cputime or rlimits.walltime
        if limit and "--timeout" not in options:
            cmd += ["--timeout", str(max(1, int(limit * 0.9)))]
        return cmd + list(options) + [task.single_input_file]

    def determine_result(self, run):
        for line in reversed(run.output):
            line = line.strip()
            if not line.startswith(self.RESULT_PREFIX):
                continue
            answer = line[len(self.RESULT_PREFIX) :]
            if answer == "TRUE":
                return result.RESULT_TRUE_PROP
            if answer == "UNKNOWN":
                return result.RESULT_UNKNOWN
            if answer.startswith("FALSE(") and answer.endswith(")"):
                prop = answer[len("FALSE(") : -1]
                if prop == "unreach-call":
                    return result.RESULT_FALSE_REACH
                if prop == "no-data-race":
                    return result.RESULT_FALSE_DATARACE
                return f"{result.RESULT_FALSE_PROP}({prop})"
            return f"{result.RESULT_ERROR} (unexpected answer: {answer})"
        if run.exit_code.value == 2:
            return f"{result.RESULT_ERROR} (agx: error, exit code 2)"
        return result.RESULT_ERROR
