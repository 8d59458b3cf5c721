#!/usr/bin/env python3
"""Run a command and print its CPU as one JSON line.

    rusage.py [--cwd DIR] [--out FILE] [--stdout FILE] [--meta K=V]... -- CMD ARGS...

user_ms and sys_ms come from wait4(2) on the child: the child's own CPU plus
that of every descendant it waited for (bash children of run_command, git,
...), in microsecond resolution (GNU time's %U/%S have 10 ms).
The child's stdin is /dev/null; stdout goes to --stdout (default /dev/null),
stderr to --stderr (default: ours). It exits with the child's exit code.
"""
import argparse
import json
import os
import subprocess
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--cwd", default=None)
ap.add_argument("--out", default=None, help="append the JSON line here too")
ap.add_argument("--stdout", default=os.devnull)
ap.add_argument("--stderr", default=None)
ap.add_argument("--meta", action="append", default=[], metavar="KEY=VALUE", help="copied into the JSON line")
ap.add_argument("cmd", nargs=argparse.REMAINDER)
a = ap.parse_args()
cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
if not cmd:
    ap.error("no command given after --")

with open(a.stdout, "wb") as out, open(a.stderr or os.devnull, "ab") if a.stderr else open(os.devnull, "rb") as err:
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, cwd=a.cwd, stdin=subprocess.DEVNULL, stdout=out,
                         stderr=err if a.stderr else None)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    p.returncode = os.waitstatus_to_exitcode(status)

rec = dict(m.split("=", 1) for m in a.meta)
rec.update({"rc": p.returncode, "user_ms": round(ru.ru_utime * 1000, 3), "sys_ms": round(ru.ru_stime * 1000, 3),
       "wall_ms": round(wall * 1000, 3), "maxrss_kb": ru.ru_maxrss, "vcsw": ru.ru_nvcsw, "ivcsw": ru.ru_nivcsw,
       "inblock": ru.ru_inblock, "oublock": ru.ru_oublock})
line = json.dumps(rec)
print(line)
if a.out:
    with open(a.out, "a") as f:
        f.write(line + "\n")
sys.exit(p.returncode if 0 <= p.returncode < 256 else 1)
