# The BenchExec tool-info module of agx lives in agx.py (load it as `agx_benchexec.agx`).
