#!/usr/bin/python3
"""The one --json schema of `simpler run` (both modes) and `simpler bench`:
success and failure, parsed with the json module (docs/cli.md).

usage: cli_json.py SIMPLER WRONG_KERNEL_IMAGE"""
import json
import os
import subprocess
import tempfile
import sys

SIMPLER, WRONG_KERNEL = sys.argv[1], sys.argv[2]

RUN_KEYS = {"example", "mode", "image", "tasks", "runs", "runs_done", "cores", "result", "time_us",
            "ns_per_task", "allocations", "committed_device_bytes", "gm_heap_base", "retained_temp_base",
            "golden", "trace", "trace_holds", "error"}
ERROR_KEYS = {"status", "name", "message", "reason", "step"}
BENCH_KEYS = {"example", "tasks", "runs", "cores", "result", "rows", "error"}
ROW_KEYS = {"mode", "measure", "median_us", "min_us", "max_us", "ns_per_task"}


def simpler(*args, want):
    p = subprocess.run([SIMPLER, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    check(p.returncode == want, f"simpler {' '.join(args)}: exit {p.returncode}, want {want}: {p.stderr}")
    lines = p.stdout.splitlines()
    check(len(lines) == 1, f"simpler {' '.join(args)}: {len(lines)} lines of JSON, want 1: {p.stdout}")
    return json.loads(lines[0])


def check(ok, what):
    if not ok:
        print("FAIL:", what, file=sys.stderr)
        sys.exit(1)


def run_object(obj, mode, result):
    check(set(obj) == RUN_KEYS, f"run keys {sorted(set(obj) ^ RUN_KEYS)} differ")
    check(obj["mode"] == mode and obj["result"] == result, f"mode/result {obj['mode']}/{obj['result']}")
    check(set(obj["time_us"]) == {"first", "mean", "min", "max"}, "time_us keys")
    check(set(obj["allocations"]) == {"host", "device"}, "allocations keys")
    check(set(obj["gm_heap_base"]) == {"before", "after"}, "gm_heap_base keys")
    check(set(obj["retained_temp_base"]) == {"before", "after"}, "retained_temp_base keys")
    check(set(obj["golden"]) == {"elements", "mismatches", "bad_run", "max_abs_err"}, "golden keys")
    if result == "error":
        check(isinstance(obj["error"], dict) and set(obj["error"]) == ERROR_KEYS, f"error object {obj['error']}")
        e = obj["error"]
        check(isinstance(e["status"], int) and e["status"] < 0, "error status")
        check(e["name"].startswith("PTO_"), "error name")
        check(e["message"] != "" and e["step"] != "", "error message and step")
        check(isinstance(e["reason"], str), "error reason")
        check(obj["trace_holds"] is None, "a failed run's trace holds nothing")
    else:
        check(obj["error"] is None, f"error is {obj['error']}, want null")


for mode in ("kernel", "program"):
    ok = simpler("run", "vector", "--mode", mode, "--runs", "2", "--cores", "2", "--json", want=0)
    run_object(ok, mode, "ok")
    check(ok["example"] == "vector" and ok["runs"] == 2 and ok["runs_done"] == 2 and ok["cores"] == 2, "counts")
    check(ok["tasks"] >= 2 and ok["time_us"]["mean"] > 0 and ok["time_us"]["first"] > 0, "times")
    check(ok["golden"]["elements"] == 16384 and ok["golden"]["mismatches"] == 0, "golden")
    check(ok["golden"]["bad_run"] == -1, "bad_run")
    if mode == "kernel":
        check(ok["allocations"] == {"host": 0, "device": 0}, "kernel launches allocate nothing")
        check(ok["gm_heap_base"]["before"] == ok["gm_heap_base"]["after"], "replays reuse the frozen heap")
    # The alias spells the same option.
    alias = simpler("run", "vector", "--mode", mode, "--replays", "1", "--json", want=0)
    check(alias["runs"] == 1, "--replays is --runs")
    check(ok["trace"] is None and ok["trace_holds"] is None, "no --trace: no trace, nothing held")
    # A trace: its path, and which execution it holds.
    path = os.path.join(tempfile.mkdtemp(prefix="simpler_cli_json_"), "t.json")
    traced = simpler("run", "vector", "--mode", mode, "--runs", "2", "--json", "--trace", path, want=0)
    run_object(traced, mode, "ok")
    holds = {"kernel": "replay 2 of 2 of the captured launch", "program": "simpler_run 2 of 2 (the last)"}[mode]
    check(traced["trace"] == path and traced["trace_holds"] == holds, f"trace {traced['trace']}: {traced['trace_holds']}")
    with open(path) as f:
        check("traceEvents" in json.load(f), "the trace file is Chrome trace JSON")
    os.remove(path)
    os.rmdir(os.path.dirname(path))
    # A trace that cannot be written: the run fails with an error object.
    bad = simpler("run", "vector", "--mode", mode, "--runs", "1", "--json", "--trace",
                  "/nonexistent-simpler-dir/t.json", want=1)
    run_object(bad, mode, "error")

# A run that misses the golden: result mismatch, no error object.
miss = simpler("run", "vector", "--mode", "program", "--image", WRONG_KERNEL, "--runs", "2", "--json", want=1)
run_object(miss, "program", "mismatch")
check(miss["golden"]["mismatches"] == 16384 and miss["golden"]["bad_run"] == 0, "mismatch counts")

# Another example's image: the orchestration refuses the arguments.
refused = simpler("run", "vector", "--mode", "program", "--image", SIMPLER.rsplit("/", 1)[0] +
                  "/examples/add_scalar.callable", "--runs", "1", "--json", want=1)
run_object(refused, "program", "error")
check(refused["error"]["step"] == "simpler_run", "the failing step is simpler_run")

for mode, rows in (("kernel", 2), ("program", 1), (None, 3)):
    args = ["bench", "add_scalar", "--runs", "2", "--json"] + (["--mode", mode] if mode else [])
    b = simpler(*args, want=0)
    check(set(b) == BENCH_KEYS, f"bench keys {sorted(set(b) ^ BENCH_KEYS)} differ")
    check(b["result"] == "ok" and b["error"] is None and b["runs"] == 2, "bench result")
    check(len(b["rows"]) == rows, f"bench --mode {mode}: {len(b['rows'])} rows, want {rows}")
    for r in b["rows"]:
        check(set(r) == ROW_KEYS, f"row keys {sorted(set(r) ^ ROW_KEYS)} differ")
        check(mode is None or r["mode"] == mode, "a row of another mode")
        check(r["min_us"] <= r["median_us"] <= r["max_us"], "row order")

print("ok: run and bench --json, both modes, success and failure")
