#!/usr/bin/env python3
"""Tally an `strace -f -ff -y -T -o DIR/tr` trace of one agent run by what
each syscall touched.

    syscalls.py DIR STEPS WORKSPACE STATE

Every tr.PID file is one thread or process. A file whose execve runs a
program other than the first file's is a child process (bash of a
run_command and what it runs); all others are the agent's threads.
A syscall is put in a category by the path it names or the fd it uses
(-y prints fds as N</path>): the workspace, the shadow repository's objects,
refs, stat cache and locks, the SQLite database, its -wal and -shm, the HTTP
socket, pipes, and the rest. Prints counts per step (total / STEPS) by
syscall and category, and the seconds spent inside syscalls (strace's -T,
which is wall time in the kernel including any wait, not CPU).
"""
import collections
import glob
import os
import re
import sys

LINE = re.compile(r'^(?:\d+\s+)?([a-z0-9_]+)\((.*)\)\s+=\s+(\S+)(?:.*?)(?:\s<([0-9.]+)>)?\s*$')
FDPATH = re.compile(r'^(?:\d+|AT_FDCWD)<([^>]*)>')
STR = re.compile(r'"((?:[^"\\]|\\.)*)"')


def category(path, ws, state):
    if path is None:
        return "none"
    if path.startswith("socket:") or path.startswith("TCP") or "TCP:" in path:
        return "http socket"
    if path.startswith("pipe:"):
        return "pipe"
    if path.startswith("anon_inode:"):
        return "epoll/eventfd"
    if path.startswith(state):
        rest = path[len(state):]
        if re.search(r'\.db-wal$', rest):
            return "sqlite -wal"
        if re.search(r'\.db-shm$', rest):
            return "sqlite -shm"
        if re.search(r'\.db(-journal)?$', rest):
            return "sqlite db"
        if "/logs/" in rest:
            return "state logs"
        if "/objects" in rest:
            return "shadow objects"
        if "/refs" in rest or "packed-refs" in rest or rest.endswith("/HEAD") or "/.ref-" in rest:
            return "shadow refs"
        if "statcache" in rest:
            return "shadow stat cache"
        if "/agent/" in rest or rest.endswith("/agent"):
            return "shadow gen, lock"
        return "state other"
    if path.startswith(ws):
        return "workspace"
    if path.startswith("/dev/"):
        return "/dev"
    if path.startswith(("/lib", "/usr/lib", "/etc", "/usr/share", "/proc", "/sys")):
        return "libs, /etc, /proc"
    return "other"


def target(name, args):
    m = FDPATH.match(args)
    base = m.group(1) if m else None
    if name in ("openat", "newfstatat", "mkdirat", "renameat", "renameat2", "unlinkat", "fchmodat", "faccessat2",
                "readlinkat", "linkat", "statx", "utimensat"):
        s = STR.search(args)
        if s:
            p = s.group(1)
            if p.startswith("/") or base is None:
                return p
            return base.rstrip("/") + "/" + p if p else base
    if name in ("stat", "lstat", "open", "access", "execve", "chdir", "unlink", "rename", "mkdir"):
        s = STR.search(args)
        return s.group(1) if s else None
    return base


def main():
    d, steps, ws, state = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    files = sorted(glob.glob(os.path.join(d, "tr.*")), key=lambda f: int(f.rsplit(".", 1)[1]))
    first_prog = None
    count = collections.Counter()
    secs = collections.Counter()
    by_sys = collections.Counter()
    proc_count = collections.Counter()
    children = 0
    created = collections.Counter()
    for f in files:
        text = open(f, errors="replace").read().splitlines()
        progs = [STR.search(l).group(1) for l in text if l.startswith("execve(") and STR.search(l)]
        if first_prog is None and progs:
            first_prog = progs[0]
        who = "agent"
        if progs and progs[0] != first_prog:
            who = "child: " + os.path.basename(progs[-1])
            children += 1
        for l in text:
            m = LINE.match(l)
            if not m:
                continue
            name, args, ret, t = m.groups()
            cat = category(target(name, args), ws, state) if who == "agent" else who
            ok = not ret.startswith("-")
            if ok and name == "openat" and "O_CREAT" in args and "O_EXCL" in args:
                created[("file (O_CREAT|O_EXCL)", cat)] += 1
            elif ok and name in ("mkdirat", "mkdir"):
                created[("directory", cat)] += 1
            elif ok and name in ("renameat", "renameat2", "rename"):
                created[("rename", cat)] += 1
            elif ok and name in ("unlinkat", "unlink"):
                created[("unlink", cat)] += 1
            elif ok and name in ("fsync", "fdatasync"):
                created[(name, cat)] += 1
            count[(name, cat)] += 1
            by_sys[name] += 1
            proc_count[who] += 1
            if t:
                secs[(name, cat)] += float(t)
    total = sum(count.values())
    print(f"{len(files)} threads/processes traced, {children} child processes; {total} syscalls = {total / steps:.0f} per step ({steps} steps)\n")
    print("syscalls per step by process:")
    for who, n in proc_count.most_common():
        print(f"  {n / steps:8.1f}  {who}")
    print("\nper step, by syscall and what it touched (count/step, ms in syscall/step):")
    for (name, cat), n in sorted(count.items(), key=lambda kv: -kv[1]):
        if n / steps < 0.5:
            continue
        print(f"  {n / steps:8.1f}  {secs[(name, cat)] * 1000 / steps:7.3f} ms  {name:14s} {cat}")
    print("\nnew inodes, renames, unlinks and fsyncs per step (new inodes are what ext4 makes dear):")
    for (what, cat), n in sorted(created.items(), key=lambda kv: -kv[1]):
        print(f"  {n / steps:8.2f}  {what:22s} {cat}")
    cats = collections.Counter()
    for (name, cat), n in count.items():
        cats[cat] += n
    print("\nper step, by category:")
    for cat, n in cats.most_common():
        print(f"  {n / steps:8.1f}  {cat}")


if __name__ == "__main__":
    main()
