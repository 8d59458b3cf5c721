#!/usr/bin/env python3
"""What new files, directories and fsyncs cost on this filesystem, in CPU
(this process's user+system time) and wall time.

    fsprobe.py [DIR]      # default: a new directory under /tmp, removed after

A checkpoint of the shadow repository writes each new object, and each
ref, as a new file (temporary file + rename), sometimes in a new fan-out
directory. This probe times those shapes against the alternatives: one file
holding all of a checkpoint's objects, and appending to one open file.
"""
import os
import resource
import shutil
import sys
import tempfile
import time


def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main():
    own = len(sys.argv) < 2
    base = tempfile.mkdtemp(prefix="fsprobe-") if own else sys.argv[1]
    os.makedirs(base, exist_ok=True)
    d = os.path.join(base, "objs")
    os.makedirs(d)
    dfd = os.open(d, os.O_RDONLY)
    app = os.open(os.path.join(d, "append"), os.O_CREAT | os.O_WRONLY | os.O_APPEND, 0o644)
    seq = [0]

    def new_file(dirpath, size, sync):
        seq[0] += 1
        t = os.path.join(dirpath, f".tmp{seq[0]}")
        fd = os.open(t, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        os.write(fd, b"z" * size)
        if sync:
            os.fsync(fd)
        os.close(fd)
        os.rename(t, os.path.join(dirpath, f"o{seq[0]}"))

    def loose(k, sync):
        for _ in range(k):
            new_file(d, 300, sync)
        if sync:
            os.fsync(dfd)

    def loose_in_new_dirs(k, sync):
        for _ in range(k):
            seq[0] += 1
            sub = os.path.join(d, f"dir{seq[0]}")
            os.mkdir(sub)
            new_file(sub, 300, sync)

    def one_file(k, sync):
        new_file(d, 300 * k, sync)
        if sync:
            os.fsync(dfd)

    def append(k, sync):
        os.write(app, b"z" * 300 * k)
        if sync:
            os.fdatasync(app)

    shapes = [
        ("5 new files (temp + rename)", loose, False),
        ("5 new files, each in a new directory", loose_in_new_dirs, False),
        ("5 new files, fsync each + the directory", loose, True),
        ("1 new file holding 5 objects", one_file, False),
        ("1 new file holding 5 objects, fsync + directory", one_file, True),
        ("5 objects appended to one open file, fdatasync", append, True),
    ]
    print(f"filesystem of {base}; load {open('/proc/loadavg').read().split()[:3]}")
    for label, fn, sync in shapes:
        n = 40
        c0, t0 = cpu(), time.monotonic()
        for _ in range(n):
            fn(5, sync)
        c1, t1 = cpu(), time.monotonic()
        print(f"  {label:50s} {(c1 - c0) / n * 1e3:6.2f} ms CPU  {(t1 - t0) / n * 1e3:7.2f} ms wall  per 5 objects")
    os.close(app)
    os.close(dfd)
    if own:
        shutil.rmtree(base)


if __name__ == "__main__":
    main()
