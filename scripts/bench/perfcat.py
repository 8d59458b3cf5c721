#!/usr/bin/env python3
"""Attribute the CPU samples of `perf record -g -e cpu-clock -F HZ` of one
agent run to what the agent was doing.

    perf script -i perf.data -F comm,tid,ip,sym,dso | perfcat.py HZ STEPS [ZERO.txt]

Each sample is one 1/HZ s of CPU. A sample is kernel time when its leaf
frame is in [kernel.kallsyms]; it is charged to the syscall whose
__x64_sys_* / __do_sys_* frame it has (or to page faults, interrupts, or
the scheduler when it has none). Each sample is also charged to a component
by its stack: the first frame, leaf first, that names one of the agent's
parts (the checkpoint store and go-git, the SQLite journal, the tools, the
HTTP client, JSON, redaction, the context builder), after the Go GC (any
GC worker frame) and the process start of children (comm != the agent's).
With ZERO.txt (the same script's output of a 0-step run, saved with
--save), the 0-step counts are subtracted before dividing by STEPS.
"""
import collections
import json
import re
import sys

COMPONENTS = [
    (re.compile(r"agent/internal/checkpoint|go-git/go-git|go-git/go-billy"), "checkpoint (shadow repo, stat cache)"),
    (re.compile(r"modernc\.org/sqlite|modernc\.org/libc|agent/internal/store|database/sql"), "SQLite journal"),
    (re.compile(r"agent/internal/atomicfile"), "tools (atomic write)"),
    (re.compile(r"agent/internal/tools\.RunCommand|agent/internal/tools\.runCommand|os/exec|syscall\.forkExec|syscall\.StartProcess|os\.StartProcess"), "tools (run_command: fork/exec, pipes, wait)"),
    (re.compile(r"agent/internal/tools"), "tools (other)"),
    (re.compile(r"agent/internal/redact"), "redaction"),
    (re.compile(r"agent/internal/agent/openai|net/http|crypto/tls|net\.|internal/poll\.\(\*FD\)\.(Read|Write)"), "HTTP client, SSE"),
    (re.compile(r"agent/internal/agent\.\(\*ContextBuilder\)|agent/internal/repomap"), "context builder"),
    (re.compile(r"encoding/json"), "JSON"),
    (re.compile(r"agent/internal/policy|agent/internal/approval"), "policy, approval"),
    (re.compile(r"agent/internal/agent|agent/cmd"), "agent loop, cmd (other)"),
]
GC = re.compile(r"runtime\.gcBgMarkWorker|runtime\.gcDrain|runtime\.bgsweep|runtime\.bgscavenge|runtime\.gcStart|runtime\.markroot|runtime\.gcAssistAlloc")
SCHED = re.compile(r"runtime\.(schedule|findRunnable|park_m|mcall|goexit0|stopm|startm|wakep|notesleep|futexsleep|mstart|sysmon|usleep|exitsyscall|entersyscall|netpoll)")
SYSCALL = re.compile(r"__(?:x64|ia32)_sys_(\w+)|__do_sys_(\w+)|__se_sys_(\w+)")


def parse(stream):
    comm, frames = None, []
    for line in stream:
        line = line.rstrip("\n")
        if not line.strip():
            if comm is not None:
                yield comm, frames
            comm, frames = None, []
            continue
        if not line.startswith("\t") and not line.startswith(" "):
            comm = line.split()[0]
            frames = []
            continue
        parts = line.strip().split(None, 1)
        if len(parts) < 2:
            continue
        rest = parts[1]
        m = re.match(r"(.*) \((.*)\)$", rest)
        sym, dso = (m.group(1), m.group(2)) if m else (rest, "")
        frames.append((sym, dso))
    if comm is not None:
        yield comm, frames


def classify(comm, frames, agent_comm):
    kernel = bool(frames) and "kernel" in frames[0][1]
    sysname = None
    if kernel:
        for sym, dso in frames:
            if "kernel" not in dso:
                break
            m = SYSCALL.search(sym)
            if m:
                sysname = next(g for g in m.groups() if g)
                break
        if sysname is None:
            ks = " ".join(s for s, d in frames if "kernel" in d)
            if "page_fault" in ks:
                sysname = "(page fault)"
            elif "exit_to_user_mode" in ks or "schedule" in ks:
                sysname = "(scheduler, return to user)"
            elif "sysvec" in ks or "irq" in ks:
                sysname = "(interrupt)"
            else:
                sysname = "(other kernel)"
    if comm != agent_comm:
        comp = f"child process ({comm})"
    else:
        syms = [s for s, _ in frames]
        comp = None
        if any(GC.search(s) for s in syms):
            comp = "Go GC"
        else:
            for s in syms:
                for rx, name in COMPONENTS:
                    if rx.search(s):
                        comp = name
                        break
                if comp:
                    break
        if comp is None:
            if any(SCHED.search(s) for s in syms):
                comp = "Go scheduler, idle threads"
            elif any("runtime.main" in s or "runtime.doInit" in s or "rt0_go" in s for s in syms):
                comp = "process start (runtime init)"
            else:
                comp = "other"
    return kernel, sysname, comp


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    save = "--save" in sys.argv
    hz, steps = float(args[0]), int(args[1])
    zero = json.load(open(args[2])) if len(args) > 2 else None
    samples = list(parse(sys.stdin))
    comms = collections.Counter(c for c, _ in samples)
    agent_comm = next((c for c, _ in comms.most_common() if c.startswith("bench-agent") or c == "agent"), comms.most_common(1)[0][0])
    comp_k, comp_u, sysc = collections.Counter(), collections.Counter(), collections.Counter()
    sys_by_comp = collections.Counter()
    for comm, frames in samples:
        k, s, c = classify(comm, frames, agent_comm)
        if k:
            comp_k[c] += 1
            sysc[s] += 1
            sys_by_comp[(s, c)] += 1
        else:
            comp_u[c] += 1
    data = {"comp_k": dict(comp_k), "comp_u": dict(comp_u), "sys": dict(sysc),
            "sys_by_comp": {f"{a}\t{b}": n for (a, b), n in sys_by_comp.items()}, "total": len(samples)}
    if save:
        json.dump(data, sys.stdout)
        return
    ms = 1000.0 / hz

    def per_step(n, z):
        return (n - z) * ms / steps

    z = zero or {"comp_k": {}, "comp_u": {}, "sys": {}, "sys_by_comp": {}, "total": 0}
    tot_k = sum(comp_k.values()) - sum(z["comp_k"].values())
    tot_u = sum(comp_u.values()) - sum(z["comp_u"].values())
    print(f"{len(samples)} samples at {hz:.0f} Hz ({len(samples) * ms:.0f} ms CPU)"
          + (f", minus {z['total']} of the 0-step run" if zero else "")
          + f"; per step: {(tot_k + tot_u) * ms / steps:.2f} ms ({tot_u * ms / steps:.2f} user, {tot_k * ms / steps:.2f} kernel)\n")
    print("per step, by component (ms user / ms kernel / total):")
    comps = set(comp_k) | set(comp_u) | set(z["comp_k"]) | set(z["comp_u"])
    rows = []
    for c in comps:
        u = per_step(comp_u.get(c, 0), z["comp_u"].get(c, 0))
        k = per_step(comp_k.get(c, 0), z["comp_k"].get(c, 0))
        rows.append((u + k, u, k, c))
    for t, u, k, c in sorted(rows, reverse=True):
        if abs(t) >= 0.02:
            print(f"  {u:6.2f}  {k:6.2f}  {t:6.2f}  {c}")
    print("\nkernel time per step, by syscall (ms), and the components it was spent for:")
    for s in sorted(set(sysc) | set(z["sys"]), key=lambda s: -(sysc.get(s, 0) - z["sys"].get(s, 0))):
        v = per_step(sysc.get(s, 0), z["sys"].get(s, 0))
        if v < 0.02:
            continue
        parts = []
        for key, n in sorted(sys_by_comp.items(), key=lambda kv: -kv[1]):
            if key[0] != s:
                continue
            pv = per_step(n, z["sys_by_comp"].get(f"{key[0]}\t{key[1]}", 0))
            if pv >= 0.02:
                parts.append(f"{key[1]} {pv:.2f}")
        print(f"  {v:6.2f}  {s:28s} {'; '.join(parts)}")


if __name__ == "__main__":
    main()
