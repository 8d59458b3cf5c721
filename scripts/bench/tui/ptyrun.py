#!/usr/bin/env python3
"""Run a TUI under a fresh pty, relay it to our terminal, time its first frame.

    ptyrun.py --marker REGEX [--cwd DIR] [--env K=V]... [--out FILE] [--meta K=V]...
              [--raw FILE] [--timeout S] [--hold S] [--keys FILE] [--quit-keys HEX,HEX]
              -- CMD ARGS...

Meant to run inside a tmux pane (the real terminal): our stdin and stdout are
the pane's pty. We open a new pty pair of the pane's size, start CMD on its
slave (a new session, the slave its controlling terminal) and relay both
ways with no buffering: what CMD writes goes to the pane as it is read, and
what the pane sends (keys, and tmux's answers to CMD's queries such as the
background colour) goes to CMD.

t0 is taken right before the fork that execs CMD; every read from the pty
master is timestamped on arrival. Reported, in ms from t0:

  first_byte_ms  the first byte CMD wrote to its terminal
  altscreen_ms   the read holding the alternate-screen switch (ESC [?1049h)
  cpu_at_frame_ms  CMD's CPU (every live thread, from schedstat) when the
                 frame's read arrived
  frame_ms       the read that completed the first frame showing MARKER: the
                 output so far, with escape sequences and all whitespace
                 removed (a renderer may move the cursor over blanks instead
                 of writing them), first matches MARKER, a regex over that
                 squeezed text

After the frame come the --keys, a JSON list of steps, each an object:

  {"delay": S}                 relay for S seconds first
  {"keys": "1b5b357e"}         then write these bytes (hex) to CMD
  {"name": "pgup"}             the key's name in the report
  {"await": true}              closed loop: wait for CMD's answer (its first
                               read, up to 5 s), then until it has been quiet
                               for 50 ms; the key's first_ms and settled_ms
                               (from the write) are reported
  {"capture": "top"}           then capture tmux's screen under that name

then --hold seconds more. All along, CMD's VmRSS, VmHWM and CPU (every
thread, from /proc) are sampled every 100 ms. Then tmux's screen is captured
(`tmux capture-pane`) and MARKER checked on what the terminal really shows
(screen_ok); --quit-keys are sent (or SIGTERM), CMD is waited for (SIGKILL
after 5 s), and one JSON line is appended to --out (our stdout is the
pane's: CMD's screen) with the fields above, the samples
([t_ms, cpu_ms, rss_kb, reads so far, hwm_kb]), the keys, the captures,
CMD's rusage and --meta.
"""
import argparse
import fcntl
import json
import os
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
import tty

ap = argparse.ArgumentParser()
ap.add_argument("--marker", required=True)
ap.add_argument("--cwd", default=None)
ap.add_argument("--env", action="append", default=[], metavar="KEY=VALUE", help="CMD's whole environment (default: ours)")
ap.add_argument("--out", required=True, help="append the JSON line here")
ap.add_argument("--raw", default=None, help="write CMD's output with read timestamps here (JSON lines)")
ap.add_argument("--meta", action="append", default=[], metavar="KEY=VALUE")
ap.add_argument("--timeout", type=float, default=20.0, help="give up on the marker after this many seconds")
ap.add_argument("--hold", type=float, default=0.3, help="seconds to relay after the frame (or the last key) before the capture")
ap.add_argument("--keys", default=None, help="JSON list of steps after the frame (see above)")
ap.add_argument("--quit-keys", default="", help="comma-separated hex byte strings that quit CMD (default: SIGTERM)")
ap.add_argument("cmd", nargs=argparse.REMAINDER)
a = ap.parse_args()
cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
if not cmd:
    ap.error("no command given after --")
marker = re.compile(a.marker.encode())
env = dict(kv.split("=", 1) for kv in a.env) if a.env else dict(os.environ)
keys = json.load(open(a.keys)) if a.keys else []

# CSI, OSC, DCS/APC/PM/SOS strings, other escapes; then every blank.
ESC_RE = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[P_^X][^\x1b]*\x1b\\|\x1b[ -/]*[0-~]")
WS_RE = re.compile(rb"[\x00-\x20\x7f]+")


def squeeze(b):
    return WS_RE.sub(b"", ESC_RE.sub(b"", b))


CLK = os.sysconf("SC_CLK_TCK")


def sample(pid):
    """CMD's VmRSS and VmHWM (kB) and its CPU so far (ms, every thread)."""
    out = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in ("VmRSS", "VmHWM"):
                    out[k] = int(v.split()[0])
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        out["cpu_ms"] = (int(fields[11]) + int(fields[12])) * 1000 / CLK
    except (OSError, IndexError, ValueError):
        pass
    return out


def thread_cpu_ms(pid):
    """CMD's CPU so far in ms at nanosecond resolution: the sum over its
    live threads of /proc/PID/task/TID/schedstat's run time (the tick-based
    utime + stime is too coarse for a 40 ms start)."""
    ns = 0
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                    ns += int(f.read().split()[0])
            except (OSError, ValueError, IndexError):
                pass
    except OSError:
        return None
    return ns / 1e6


def capture():
    if not os.environ.get("TMUX"):
        return None
    try:
        return subprocess.run(["tmux", "capture-pane", "-p"], capture_output=True, text=True, timeout=5).stdout
    except (OSError, subprocess.SubprocessError):
        return None


stdin_fd, stdout_fd = sys.stdin.fileno(), sys.stdout.fileno()
try:
    size = fcntl.ioctl(stdout_fd, termios.TIOCGWINSZ, b"\0" * 8)
except OSError:
    size = struct.pack("HHHH", 40, 120, 0, 0)
old_attr = termios.tcgetattr(stdin_fd) if os.isatty(stdin_fd) else None
if old_attr is not None:
    tty.setraw(stdin_fd)

t0_wall = time.time()
t0 = time.monotonic()
pid, master = os.forkpty()
if pid == 0:
    try:
        fcntl.ioctl(0, termios.TIOCSWINSZ, size)
        if a.cwd:
            os.chdir(a.cwd)
        os.execvpe(cmd[0], cmd, env)
    finally:
        os._exit(127)

st = {"first": None, "alt": None, "frame": None, "frame_cpu": None, "closed": False}
buf = bytearray()
squeezed_upto = 0
reads = []  # (t_ms, nbytes)
sent = []  # the keys sent and how CMD answered them
raw = open(a.raw, "w") if a.raw else None


def pump(timeout):
    """One round of relaying; False once CMD's side of the pty closed."""
    try:
        r, _, _ = select.select([master, stdin_fd], [], [], timeout)
    except InterruptedError:
        return True
    if master in r:
        try:
            data = os.read(master, 1 << 16)
        except OSError:
            data = b""
        if not data:
            st["closed"] = True
            return False
        now = (time.monotonic() - t0) * 1000
        os.write(stdout_fd, data)
        reads.append((now, len(data)))
        if raw:
            raw.write(json.dumps({"t_ms": round(now, 3), "data": data.decode("latin-1")}) + "\n")
        if st["first"] is None:
            st["first"] = now
        tail = max(0, len(buf) - 16)
        buf.extend(data)
        if st["alt"] is None and b"\x1b[?1049h" in buf[tail:]:
            st["alt"] = now
        if st["frame"] is None and marker.search(squeeze(bytes(buf))):
            st["frame"] = now
            st["frame_cpu"] = thread_cpu_ms(pid)
    if stdin_fd in r:
        try:
            data = os.read(stdin_fd, 1 << 16)
        except OSError:
            data = b""
        if data:
            os.write(master, data)
    return True


samples = []  # [t_ms, cpu_ms, rss_kb, reads so far]
captures = {}
screen, screen_ok, reaped = "", None, None
try:
    # Until the frame (or the timeout, or CMD's end).
    deadline = t0 + a.timeout
    while st["frame"] is None and time.monotonic() < deadline and pump(0.005):
        pass
    if st["frame"] is not None:
        # The keys, then the hold; CPU and RSS sampled every 100 ms.
        last = [0.0]

        def tick():
            if time.monotonic() - last[0] >= 0.1:
                last[0] = time.monotonic()
                sm = sample(pid)
                if sm:
                    samples.append([round((last[0] - t0) * 1000, 1), sm.get("cpu_ms"), sm.get("VmRSS"), len(reads), sm.get("VmHWM")])

        def relay_until(t):
            while time.monotonic() < t and not st["closed"]:
                tick()
                pump(min(0.005, max(0.0, t - time.monotonic())))

        for e in keys + [{"delay": a.hold}]:
            relay_until(time.monotonic() + e.get("delay", 0))
            if st["closed"]:
                break
            if e.get("keys"):
                t_key = (time.monotonic() - t0) * 1000
                n0 = len(reads)
                os.write(master, bytes.fromhex(e["keys"]))
                rec_key = {"key": e.get("name", e["keys"]), "t_ms": round(t_key, 3), "first_ms": None, "settled_ms": None}
                if e.get("await"):
                    # Closed loop: the first read of the answer (up to 5 s),
                    # then until CMD has been quiet for 50 ms.
                    give_up = time.monotonic() + 5
                    while len(reads) == n0 and time.monotonic() < give_up and not st["closed"]:
                        tick()
                        pump(0.002)
                    if len(reads) > n0:
                        rec_key["first_ms"] = round(reads[n0][0] - t_key, 3)
                        while not st["closed"]:
                            quiet_since = reads[-1][0]
                            relay_until(time.monotonic() + 0.05)
                            if reads[-1][0] == quiet_since:
                                break
                        rec_key["settled_ms"] = round(reads[-1][0] - t_key, 3)
                sent.append(rec_key)
            if e.get("capture"):
                captures[e["capture"]] = capture()
        sm = sample(pid)
        if sm:
            samples.append([round((time.monotonic() - t0) * 1000, 1), sm.get("cpu_ms"), sm.get("VmRSS"), len(reads), sm.get("VmHWM")])
    screen = capture() or ""
    screen_ok = bool(marker.search(squeeze(screen.encode()))) if os.environ.get("TMUX") else None
    # Quit: CMD's own keys when given (it restores the terminal), else SIGTERM.
    if not st["closed"]:
        if a.quit_keys:
            for k in a.quit_keys.split(","):
                os.write(master, bytes.fromhex(k))
                end = time.monotonic() + 0.2
                while time.monotonic() < end and pump(0.01):
                    pass
        else:
            os.kill(pid, signal.SIGTERM)
    end = time.monotonic() + 5
    while time.monotonic() < end:
        wpid, status, ru = os.wait4(pid, os.WNOHANG)
        if wpid:
            reaped = (status, ru)
            break
        if not st["closed"]:
            pump(0.01)
        else:
            time.sleep(0.01)
    if reaped is None:
        os.kill(pid, signal.SIGKILL)
        _, status, ru = os.wait4(pid, 0)
        reaped = (status, ru)
finally:
    if old_attr is not None:
        termios.tcsetattr(stdin_fd, termios.TCSAFLUSH, old_attr)
    if raw:
        raw.close()

status, ru = reaped
frame = st["frame"]
rnd = lambda v: None if v is None else round(v, 3)
rec = dict(m.split("=", 1) for m in a.meta)
rec.update({
    "t0_wall": t0_wall, "first_byte_ms": rnd(st["first"]), "altscreen_ms": rnd(st["alt"]), "frame_ms": rnd(frame),
    "cpu_at_frame_ms": rnd(st["frame_cpu"]), "screen_ok": screen_ok,
    "reads_to_frame": sum(1 for t, _ in reads if frame is not None and t <= frame),
    "bytes_to_frame": sum(n for t, n in reads if frame is not None and t <= frame),
    "exit": os.waitstatus_to_exitcode(status),
    "user_ms": round(ru.ru_utime * 1000, 3), "sys_ms": round(ru.ru_stime * 1000, 3), "maxrss_kb": ru.ru_maxrss,
})
if samples:
    rec["vmrss_kb_last"] = samples[-1][2]
    rec["vmhwm_kb_last"] = samples[-1][4]
    rec["vmrss_kb_peak"] = max(x[2] or 0 for x in samples)
    rec["samples"] = samples
if sent:
    # Key to screen, for the keys sent with "await": from writing the key to
    # the first read of CMD's answer, and to the last read before it went
    # quiet; None when nothing came within 5 s.
    rec["keys"] = sent
if captures:
    rec["captures"] = captures
if frame is None:
    rec["screen"] = screen
with open(a.out, "a") as f:
    f.write(json.dumps(rec) + "\n")
sys.exit(0 if frame is not None else 1)
