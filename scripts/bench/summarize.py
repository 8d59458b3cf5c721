#!/usr/bin/env python3
"""Check and summarize a steps.sh sitting.

    summarize.py RESULTS.jsonl LLM.log

RESULTS.jsonl has one rusage.py line per run (fields tool, mix, steps, run,
tag, rc, user_ms, sys_ms, ...); LLM.log the server's request log. A run
counts only if it exited 0 and the server saw every step's tool result come
back (step k's request carries the result of step k-1) and the final
request; otherwise the sitting fails with the run named.

Per tool and mix it prints the median CPU of the N-step runs and of the
0-step runs (start-up: one model request and the final answer), and the
per-step figure (median N-step - median 0-step) / N, user and sys apart.
"""
import json
import statistics
import sys
from collections import defaultdict


def expected_marker(mix, k):
    """What the result of step k must contain when it reaches the model."""
    if mix == "prime":
        return "exit code: 0"
    if mix == "cycle":  # write, read, edit cK.txt, then `echo K >> side.log` (no output to check)
        i, j = divmod(k, 4)
        return [f"c{i}.txt", f"line {i}", f"c{i}.txt", ""][j]
    if mix == "writes":
        return f"w{k:02d}.txt"
    if mix == "echos":
        return f"bench step {k}"
    if k % 2 == 0:
        return f"w{k:02d}.txt"
    if mix == "echo":
        return f"bench step {k}"
    return f"step {k - 1} line 0"


def main():
    results = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
    reqs = defaultdict(list)
    for l in open(sys.argv[2]):
        if l.strip():
            r = json.loads(l)
            reqs[r["tag"]].append(r)
    bad = []
    for r in results:
        n = int(r["steps"])
        if r["rc"] != 0:
            bad.append(f"{r['tag']}: exit code {r['rc']}")
            continue
        seen = {q["step"]: q for q in reqs[r["tag"]] if not q["aside"]}
        for k in range(1, n + 1):
            q = seen.get(k)
            want = expected_marker(r["mix"], k - 1)
            if q is None or want not in (q.get("last_result") or ""):
                bad.append(f"{r['tag']}: the result of step {k - 1} never reached the model (wanted {want!r}, got {q and q.get('last_result')!r})")
                break
        if n not in seen and not bad:
            bad.append(f"{r['tag']}: no final request")
    if bad:
        print("FAIL: runs that did not do every step:\n  " + "\n  ".join(bad))
        sys.exit(1)

    groups = defaultdict(list)
    for r in results:
        groups[(r["tool"], r["mix"], int(r["steps"]))].append(r)

    def med(rs, key):
        return statistics.median(x[key] for x in rs)

    rows = []
    for (tool, mix, n) in sorted(groups):
        if n == 0:
            continue
        full, zero = groups[(tool, mix, n)], groups.get((tool, mix, 0), [])
        u, s = med(full, "user_ms"), med(full, "sys_ms")
        u0, s0 = (med(zero, "user_ms"), med(zero, "sys_ms")) if zero else (0.0, 0.0)
        rows.append(dict(tool=tool, mix=mix, n=n, runs=len(full), u=u, s=s, u0=u0, s0=s0,
                         pu=(u - u0) / n, ps=(s - s0) / n, wall=med(full, "wall_ms"),
                         rss=med(full, "maxrss_kb"), spread=(min(x["user_ms"] + x["sys_ms"] for x in full),
                                                            max(x["user_ms"] + x["sys_ms"] for x in full))))
    print("| tool | mix | runs | N-step run CPU user+sys (ms) | 0-step run (ms) | per step: total | user | sys | wall per run | max RSS |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['tool']} | {r['mix']} | {r['runs']} | {r['u']:.0f}+{r['s']:.0f} (min {r['spread'][0]:.0f}, max {r['spread'][1]:.0f}) "
              f"| {r['u0']:.0f}+{r['s0']:.0f} | **{r['pu'] + r['ps']:.2f} ms** | {r['pu']:.2f} | {r['ps']:.2f} "
              f"| {r['wall']:.0f} ms | {r['rss'] / 1024:.0f} MB |")
    by = {(r["tool"], r["mix"]): r for r in rows}
    for mix in sorted({r["mix"] for r in rows}):
        c = by.get(("crush", mix))
        for tool in sorted(t for t, m in by if m == mix and t.startswith("agent")):
            a = by.get((tool, mix))
            if a and c:
                ta, tc = a["pu"] + a["ps"], c["pu"] + c["ps"]
                print(f"\nmix {mix}: {tool}/crush per-step CPU = {ta:.2f}/{tc:.2f} = {ta / tc:.2f}x "
                      f"(user {a['pu']:.2f}/{c['pu']:.2f}, sys {a['ps']:.2f}/{c['ps']:.2f})")


if __name__ == "__main__":
    main()
