#!/usr/bin/python3
"""The structure of `simpler run --trace` files, on real runs of every
example in both modes (docs/trace.md), read with the json module:

- the file is one JSON object with traceEvents and otherData;
- every track that holds an event is named (thread_name): "AIC i" and
  "AIV j" for cores, "scheduler", "host"; the process is named;
- no two complete events overlap on one track;
- every task of the run is one task event, exactly once, named after its
  kernel (the examples' images name every kernel);
- every flow has one start and one finish, each inside a complete event
  of its track, and the flows are exactly the edges of the derived graph
  (`simpler graph IMAGE --dot`);
- the host spans: build, upload, launch, wait and copy back in program
  mode; build and enqueue in kernel mode when the trace holds the first
  execution of the launch's packet, none for a later replay.

usage: check_trace.py SIMPLER WORKDIR"""
import json
import os
import re
import subprocess
import sys

SIMPLER, WORK = sys.argv[1], sys.argv[2]
os.makedirs(WORK, exist_ok=True)
EXAMPLES = ("vector", "add_scalar", "paged_attention", "matmul_add", "tutorial")
HOST_SPANS = {"program": ["build", "upload", "launch", "wait", "copy back"], "kernel": ["build", "enqueue"]}
TID_SCHEDULER, TID_HOST = 1000, 1001


def fail(what):
    print("FAIL:", what, file=sys.stderr)
    sys.exit(1)


def check(ok, what):
    if not ok:
        fail(what)


def ns(us):
    """Microseconds with three decimals, back to integer nanoseconds."""
    return round(us * 1000)


def run(*args):
    p = subprocess.run([SIMPLER, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    check(p.returncode == 0, f"simpler {' '.join(args)}: exit {p.returncode}: {p.stderr}")
    return p.stdout


def dot_edges(example):
    path = os.path.join(WORK, f"{example}.dot")
    run("graph", example, "--dot", path)
    with open(path) as f:
        return {(int(a), int(b)) for a, b in re.findall(r"t(\d+) -> t(\d+)", f.read())}


def names(events):
    """tid -> thread name, and the process names."""
    threads, processes = {}, []
    for e in events:
        if e.get("ph") != "M":
            continue
        if e["name"] == "thread_name":
            check(e["tid"] not in threads, f"track {e['tid']} named twice")
            threads[e["tid"]] = e["args"]["name"]
        elif e["name"] == "process_name":
            processes.append(e["args"]["name"])
    return threads, processes


def tracks_named(complete, threads, processes):
    check(len(processes) == 1 and processes[0].startswith("simpler device"), f"process names {processes}")
    for e in complete:
        check(e["tid"] in threads, f"event {e['name']} on unnamed track {e['tid']}")
        want = {"task": r"(AIC|AIV) \d+", "scheduler": "scheduler", "host": "host"}[e["cat"]]
        check(re.fullmatch(want, threads[e["tid"]]), f"{e['cat']} event on track '{threads[e['tid']]}'")
    present = set(threads.values())
    check("scheduler" in present, "no scheduler track")
    check(any(re.fullmatch(r"(AIC|AIV) \d+", n) for n in present), "no core track")


def no_overlap(complete):
    by_track = {}
    for e in complete:
        check(e["dur"] >= 0, f"negative duration on {e['name']}")
        by_track.setdefault((e["pid"], e["tid"]), []).append((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]), e["name"]))
    for track, spans in by_track.items():
        spans.sort()
        for (s0, e0, n0), (s1, _, n1) in zip(spans, spans[1:]):
            check(s1 >= e0, f"track {track}: {n0} [{s0}, {e0}] overlaps {n1} starting {s1}")


def tasks_once(complete, task_count):
    tasks = [e for e in complete if e["cat"] == "task"]
    ids = sorted(e["args"]["task"] for e in tasks)
    check(ids == list(range(task_count)), f"task ids {ids}, want each of 0..{task_count - 1} once")
    for e in tasks:
        check(not e["name"].startswith("func "), f"task {e['args']['task']} is '{e['name']}', not its kernel's name")
    return {e["args"]["task"]: e for e in tasks}


def flows_bound(events, complete, tasks, edges):
    starts = {e["id"]: e for e in events if e.get("ph") == "s"}
    finishes = {e["id"]: e for e in events if e.get("ph") == "f"}
    check(len(starts) == len([e for e in events if e.get("ph") == "s"]), "two flow starts share an id")
    check(set(starts) == set(finishes), "a flow without its other end")
    pairs = set()
    for fid, s in starts.items():
        f = finishes[fid]
        check(f.get("bp") == "e", f"flow {fid}: the finish does not bind to its enclosing slice")
        for end in (s, f):
            inside = [c for c in complete if c["pid"] == end["pid"] and c["tid"] == end["tid"] and
                      ns(c["ts"]) <= ns(end["ts"]) <= ns(c["ts"]) + ns(c["dur"])]
            check(inside, f"flow {fid}: the {end['ph']} end at {end['ts']} on track {end['tid']} binds to no event")
        a, b = s["args"]["from"], s["args"]["to"]
        check(tasks[a]["tid"] == s["tid"] and tasks[a]["ts"] == s["ts"], f"flow {fid} starts off task {a}")
        check(tasks[b]["tid"] == f["tid"] and tasks[b]["ts"] == f["ts"], f"flow {fid} ends off task {b}")
        pairs.add((a, b))
    check(len(pairs) == len(starts), "two flows on one edge")
    check(pairs == edges, f"flows {sorted(pairs ^ edges)} differ from the derived graph's edges")


def host_spans(complete, want):
    got = [e["name"] for e in sorted((e for e in complete if e["cat"] == "host"), key=lambda e: e["ts"])]
    check(got == want, f"host spans {got}, want {want}")


def check_file(path, summary, edges, mode, first_run):
    with open(path) as f:
        doc = json.load(f)
    check(set(doc) >= {"traceEvents", "displayTimeUnit", "otherData"}, f"top-level keys {sorted(doc)}")
    events, other = doc["traceEvents"], doc["otherData"]
    check(other["tasks"] == summary["tasks"], f"otherData.tasks {other['tasks']}, the run had {summary['tasks']}")
    check(other["task_records_dropped"] == 0, "records were dropped")
    check(other["dependencies"] == "from the executed graph", f"dependencies {other['dependencies']}")
    complete = [e for e in events if e.get("ph") == "X"]
    threads, processes = names(events)
    tracks_named(complete, threads, processes)
    no_overlap(complete)
    tasks = tasks_once(complete, summary["tasks"])
    flows_bound(events, complete, tasks, edges)
    host_spans(complete, HOST_SPANS[mode] if first_run else [])
    if first_run:
        check(TID_HOST in threads and threads[TID_HOST] == "host", "no host track")


for example in EXAMPLES:
    edges = dot_edges(example)
    for mode, runs in (("program", 1), ("kernel", 1), ("kernel", 2)):
        path = os.path.join(WORK, f"{example}.{mode}.{runs}.json")
        if os.path.exists(path):
            os.remove(path)
        summary = json.loads(run("run", example, "--mode", mode, "--runs", str(runs), "--trace", path, "--json"))
        check(summary["result"] == "ok" and summary["trace"] == path, f"{example} {mode}: {summary}")
        holds = summary["trace_holds"]
        if mode == "kernel":
            check(holds == f"replay {runs} of {runs} of the captured launch", f"trace_holds {holds}")
        else:
            check(holds == f"simpler_run {runs} of {runs} (the last)", f"trace_holds {holds}")
        # Kernel mode: the first replay of the captured packet carries the
        # launch's host spans; a second replay of it carries none.
        check_file(path, summary, edges, mode, first_run=(mode == "program" or runs == 1))
        print(f"ok: {example} {mode} --runs {runs}: {summary['tasks']} tasks, {len(edges)} flows")
print("ok: traces of every example, both modes")
