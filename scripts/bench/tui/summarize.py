#!/usr/bin/env python3
"""Summarize scripts/bench/tui.sh's runs as markdown tables.

    summarize.py RESULTS.jsonl LLM.log

Medians and p90 (nearest rank) over the counted runs (round 0 of the start
scenario is a warm-up and not counted); ratios are agent / Crush of the
medians. A run whose frame never came is counted apart and listed.
"""
import json
import math
import os
import statistics
import sys

results = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
log = [json.loads(l) for l in open(sys.argv[2]) if l.strip()] if os.path.exists(sys.argv[2]) else []


def p(v, q):
    v = sorted(x for x in v if x is not None)
    if not v:
        return None
    return v[max(0, math.ceil(q * len(v)) - 1)]


def med(v):
    v = [x for x in v if x is not None]
    return statistics.median(v) if v else None


def f(x, nd=1):
    return "—" if x is None else f"{x:,.{nd}f}"


def ratio(a, b):
    return "—" if a is None or not b else f"{a / b:.2f}×"


def mib(kb):
    return None if kb is None else kb / 1024


failed = [r for r in results if r.get("scenario") in ("start", "long", "stream") and r.get("frame_ms") is None]
if failed:
    print(f"**{len(failed)} run(s) never showed their frame:** " +
          ", ".join(f"{r.get('scenario')}/{r.get('tool')}/{r.get('state', '')} round {r.get('round')}" for r in failed))
    print()

# --- start ----------------------------------------------------------------------
start = [r for r in results if r.get("scenario") == "start" and r.get("round") != "0" and r.get("frame_ms") is not None]
if start:
    print("### Start to first frame (ms from exec)\n")
    print("| tool | state | runs | median | p90 | min | max | first byte (median) | CPU at the frame (ms, median; min) | VmRSS at the frame + 0.3 s (median) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    meds, cpus = {}, {}
    for tool in ("agent", "crush", "floor"):
        for state in ("fresh", "warm"):
            rs = [r for r in start if r["tool"] == tool and r.get("state") == state]
            if not rs:
                continue
            v = [r["frame_ms"] for r in rs]
            meds[(tool, state)] = med(v)
            rss = med([mib(r.get("vmrss_kb_last")) for r in rs])
            cpu = [r.get("cpu_at_frame_ms") for r in rs if r.get("cpu_at_frame_ms") is not None]
            cpus[(tool, state)] = med(cpu)
            print(f"| {tool} | {state} | {len(rs)} | **{f(med(v))}** | {f(p(v, .9))} | {f(min(v))} | {f(max(v))} | "
                  f"{f(med([r['first_byte_ms'] for r in rs]))} | {f(med(cpu))}; {f(min(cpu) if cpu else None)} | {f(rss)} MiB |")
    print()
    for state in ("fresh", "warm"):
        a, c = meds.get(("agent", state)), meds.get(("crush", state))
        if a is not None and c is not None:
            print(f"- {state}: agent / Crush = **{ratio(a, c)}** (medians); CPU to the frame {ratio(cpus.get(('agent', state)), cpus.get(('crush', state)))}; goal ≤ 50 ms: "
                  f"{'met' if a <= 50 else 'not met'} ({f(a)} ms)")
    print()

# --- long -----------------------------------------------------------------------
long_ = [r for r in results if r.get("scenario") == "long"]
if long_:
    print(f"### A reopened session of {long_[0].get('items')} items: first frame, scrolling, memory\n")
    print("| tool | runs | to the frame with the last answer (ms, median) | PgUp: key to screen, first / settled (ms, median; p90) | "
          "PgDn (median) | keys with no answer in 5 s | VmRSS after scrolling (MiB, median) | VmHWM (MiB, median) |")
    print("|---|---:|---:|---|---:|---:|---:|---:|")
    rows = {}
    for tool in ("agent", "crush"):
        rs = [r for r in long_ if r["tool"] == tool and r.get("frame_ms") is not None]
        if not rs:
            continue
        keys = [k for r in rs for k in r.get("keys", [])]
        up = [k for k in keys if k["key"] == "pgup"]
        dn = [k for k in keys if k["key"] == "pgdown"]
        none = sum(1 for k in keys if k["first_ms"] is None)
        rss = med([mib(r.get("vmrss_kb_last")) for r in rs])
        hwm = med([mib(r.get("vmhwm_kb_last")) for r in rs])
        fr = med([r["frame_ms"] for r in rs])
        rows[tool] = (fr, med([k["first_ms"] for k in up]), rss, hwm)
        print(f"| {tool} | {len(rs)} | {f(fr)} | {f(med([k['first_ms'] for k in up]))} / {f(med([k['settled_ms'] for k in up]))} "
              f"(p90 {f(p([k['first_ms'] for k in up], .9))} / {f(p([k['settled_ms'] for k in up], .9))}) | "
              f"{f(med([k['first_ms'] for k in dn]))} | {none} of {len(keys)} | **{f(rss)}** | {f(hwm)} |")
    print()
    if "agent" in rows and "crush" in rows:
        a, c = rows["agent"], rows["crush"]
        print(f"- agent / Crush: reopening {ratio(a[0], c[0])}, PgUp key to screen {ratio(a[1], c[1])}, "
              f"VmRSS after scrolling {ratio(a[2], c[2])}, VmHWM {ratio(a[3], c[3])}")
        print(f"- goal ≤ 60 MiB resident: {'met' if a[2] is not None and a[2] <= 60 else 'not met'} ({f(a[2])} MiB)")
        print()

# --- stream ---------------------------------------------------------------------
stream = [r for r in results if r.get("scenario") == "stream" and r.get("frame_ms") is not None]
if stream:
    ends = {l["tag"]: l for l in log if "stream_start" in l}
    print("### While an answer streams (whole process, the stream's first and last 0.5 s left out)\n")
    print("| tool | runs | CPU (% of one core, median) | frames written per s | CPU per frame (ms) | deltas per s | VmRSS (MiB) | "
          "answer on screen halfway through / after |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    rows = {}
    for tool in ("agent", "crush"):
        cpu, fps, per, dps, rss, seen = [], [], [], [], [], []
        for r in (r for r in stream if r["tool"] == tool):
            e = ends.get(r.get("tag"))
            if not e or not r.get("samples"):
                continue
            lo = (e["stream_start"] - r["t0_wall"]) * 1000 + 500
            hi = (e["stream_end"] - r["t0_wall"]) * 1000 - 500
            s = [x for x in r["samples"] if lo <= x[0] <= hi and x[1] is not None]
            if len(s) < 2:
                continue
            dt = (s[-1][0] - s[0][0]) / 1000
            dcpu = s[-1][1] - s[0][1]
            dframes = s[-1][3] - s[0][3]
            cpu.append(100 * dcpu / 1000 / dt)
            fps.append(dframes / dt)
            per.append(dcpu / dframes if dframes else None)
            dps.append(e["deltas"] / (e["stream_end"] - e["stream_start"]))
            rss.append(mib(s[-1][2]))
            caps = r.get("captures", {})
            # Part of the answer halfway through (a sentence of every
            # section), its last words after.
            mid = caps.get("mid") or ""
            seen.append(("yes" if "holds the lock" in mid or "I looked at the journal" in mid else "no") + " / " +
                        ("yes" if "That is all" in (caps.get("end") or "") else "no"))
        if cpu:
            rows[tool] = (med(cpu), med(per), all(x.startswith("yes") for x in seen))
            print(f"| {tool} | {len(cpu)} | **{f(med(cpu))} %** | {f(med(fps))} | {f(med(per), 2)} | {f(med(dps), 0)} | {f(med(rss))} | "
                  f"{', '.join(seen)} |")
    print()
    for tool, row in rows.items():
        if not row[2]:
            print(f"- {tool} showed none of the answer halfway through the stream: its figures are not those of "
                  "rendering a stream, and no ratio is given")
    if "agent" in rows and "crush" in rows and rows["agent"][2] and rows["crush"][2]:
        print(f"- agent / Crush: CPU while streaming {ratio(rows['agent'][0], rows['crush'][0])}, "
              f"CPU per frame {ratio(rows['agent'][1], rows['crush'][1])}")
        print()

# --- idle -----------------------------------------------------------------------
idle = [r for r in results if r.get("scenario") == "idle" and r.get("frame_ms") is not None]
if idle:
    print("### Idle on the first screen\n")
    print("| tool | runs | seconds | CPU over them (ms, median) | % of one core | VmRSS at the end (MiB, median) |")
    print("|---|---:|---:|---:|---:|---:|")
    rows = {}
    for tool in ("agent", "crush"):
        rs = [r for r in idle if r["tool"] == tool]
        if not rs:
            continue
        cpu, secs = [], []
        for r in rs:
            sm = [x for x in r.get("samples", []) if x[1] is not None]
            # from the first sample 2 s after the frame to the last one
            after = [x for x in sm if x[0] >= r["frame_ms"] + 2000]
            if len(after) >= 2:
                cpu.append(after[-1][1] - after[0][1])
                secs.append((after[-1][0] - after[0][0]) / 1000)
        rows[tool] = med(cpu)
        pct = None if not cpu else 100 * med(cpu) / 1000 / med(secs)
        print(f"| {tool} | {len(rs)} | {f(med(secs))} | **{f(med(cpu))}** | {f(pct, 3)} | {f(mib(med([r.get('vmrss_kb_last') for r in rs])))} |")
    print()
    if rows.get("agent") is not None and rows.get("crush") is not None:
        print(f"- agent / Crush: idle CPU {ratio(rows['agent'], rows['crush'])}" + (" (the agent used none)" if rows["agent"] == 0 else ""))
        print()

# --- init -----------------------------------------------------------------------
init = [r for r in results if r.get("scenario") == "init" and r.get("round") != "0" and r.get("rc") == 0]
traces = {}
for r in results:
    if r.get("scenario") == "inittrace":
        traces.setdefault(r["tool"], []).append(r)
if init:
    print("### Process start without a terminal (`agent version`, `crush --version`)\n")
    print("| tool | runs | wall (ms, median) | p90 | CPU user + sys (ms, median) | Go package init: sum (ms, median of 5 traced runs) | the largest initializers (ms, median) |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for tool in ("agent", "crush"):
        rs = [r for r in init if r["tool"] == tool]
        if not rs:
            continue
        ts = traces.get(tool, [])
        by = {}
        for t in ts:
            for n, ms in t["top"]:
                by.setdefault(n, []).append(ms)
        # Each package's median over the traced runs (0 where it was not among a run's six largest).
        tops = sorted(((n, statistics.median(v + [0] * (len(ts) - len(v)))) for n, v in by.items()), key=lambda x: -x[1])
        top = ", ".join(f"`{n}` {ms:g}" for n, ms in tops[:4])
        t = {"sum_ms": med([t["sum_ms"] for t in ts]), "packages": ts[0]["packages"] if ts else 0}
        print(f"| {tool} | {len(rs)} | **{f(med([r['wall_ms'] for r in rs]))}** | {f(p([r['wall_ms'] for r in rs], .9))} | "
              f"{f(med([r['user_ms'] + r['sys_ms'] for r in rs]))} | {f(t.get('sum_ms'))} ({t.get('packages', 0)} packages) | {top} |")
    print()
