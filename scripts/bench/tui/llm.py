#!/usr/bin/env python3
"""A scripted OpenAI-compatible streaming server for the TUI benchmarks.

It plays the same conversation to every tool it serves, each in its own tool
dialect. The base URL names the dialect, the mode and two numbers:

    http://127.0.0.1:PORT/<tag>/<dialect>/<mode>/<a>/<b>/v1

dialect: agent   read_file{path}, run_command{command}
         crush   view{file_path}, bash{command,description}
mode:    long    a long session: a turns, each a markdown answer (a few
                 lines; every fourth one with a code block, every third a
                 list) and b tool calls made in parallel (even ones read
                 fNN.txt, odd ones run `echo ...`), then a final answer.
                 Items on screen: 1 prompt + a * (1 + b) + 1.
         stream  one answer of markdown (headings, paragraphs, lists, Go
                 code blocks) of at least b tokens of 4 characters (whole
                 sections: b=1500 gives 7.2 kB, 1,803 deltas), streamed at a
                 4-character deltas per second, no tool calls.

Turn k is the number of assistant messages already in the request, so the
reply depends only on the conversation. A request that offers no tools (a
session title, a summary) gets a short text reply outside the script. Each
request is logged to --log as one JSON line (tag, dialect, turn, whether
it offered tools, how many tool results it carried, its size), so the
harness can check that the session was played whole; a paced stream logs
one more line when it ends (the wall-clock times of its first and last
delta).
Loopback only; it stops on SIGTERM.
"""
import argparse
import json
import os
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ap = argparse.ArgumentParser()
ap.add_argument("--portfile", required=True)
ap.add_argument("--log", required=True)
args = ap.parse_args()
lock = threading.Lock()
ROLE_ASSISTANT = re.compile(rb'"role"\s*:\s*"assistant"')
ROLE_TOOL = re.compile(rb'"role"\s*:\s*"tool"')
TOOLS = re.compile(rb'"tools"\s*:\s*\[\s*\{')
MODEL = re.compile(rb'"model"\s*:\s*"([^"\\]*)"')
STREAM = re.compile(rb'"stream"\s*:\s*true')
CALL_ID = re.compile(rb'call_([0-9]+)_[0-9]+')

DIALECTS = {
    "agent": {
        "read": lambda path: ("read_file", {"path": path}),
        "exec": lambda cmd: ("run_command", {"command": cmd}),
    },
    "crush": {
        "read": lambda path: ("view", {"file_path": path}),
        "exec": lambda cmd: ("bash", {"command": cmd, "description": "bench step"}),
    },
}


def turn_text(k):
    """A short markdown answer, different for every turn."""
    s = f"Turn {k}: looking at `pkg{k % 97}` next. The failure in step {k} comes from a stale cache, so I read the files and check the output.\n"
    if k % 3 == 0:
        s += f"\n- the cache key misses the **version** ({k})\n- the reader retries once\n"
    if k % 4 == 0:
        s += f"\n```go\nfunc check{k}(x int) error {{\n\tif x < 0 {{\n\t\treturn fmt.Errorf(\"negative: %d\", x)\n\t}}\n\treturn nil\n}}\n```\n"
    return s


def calls_for(dialect, k, n):
    d = DIALECTS[dialect]
    out = []
    for j in range(n):
        if j % 2 == 0:
            name, a = d["read"](f"f{(k + j) % 20:02d}.txt")
        else:
            name, a = d["exec"](f"echo turn {k} call {j}: ok")
        out.append({"id": f"call_{k}_{j}", "name": name, "arguments": json.dumps(a)})
    return out


def stream_answer(tokens):
    """About `tokens` tokens (4 characters each) of markdown."""
    parts = ["I looked at the journal and the loop. The flaky test comes from a race between the writer and the checkpoint goroutine; here is what happens and how to fix it.\n\n"]
    sec = 0
    while sum(len(p) for p in parts) < tokens * 4:
        sec += 1
        parts.append(f"## Step {sec}: the part of the fix that touches `file{sec}.go`\n\n")
        parts.append("The function below holds the lock across the write and the fsync, so that a reader never sees a half-written record. ")
        parts.append("It returns the error wrapped with `%w`, which keeps `errors.Is` working for the caller that retries.\n\n")
        parts.append("- it keeps the order of events\n- it never drops a record on a crash\n- it costs one fsync per step\n\n")
        parts.append(f"```go\nfunc (j *Journal) Append{sec}(ctx context.Context, e event.Event) error {{\n")
        for i in range(6):
            parts.append(f"\tif err := j.write{i}(ctx, e, {i * sec}); err != nil {{\n\t\treturn fmt.Errorf(\"journal: step {i}: %w\", err)\n\t}}\n")
        parts.append("\treturn j.sync()\n}\n```\n\n")
        parts.append("After this change the test passed five hundred times in a row on my machine, and the race detector is quiet.\n\n")
    parts.append("That is all: run `go test -race ./internal/store/...` to check it on yours.\n")
    return "".join(parts)


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def reply_json(self, code, obj):
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def route(self):
        # <tag>/<dialect>/<mode>/<a>/<b>/v1/<endpoint...>
        parts = self.path.strip("/").split("/")
        if len(parts) < 7 or parts[1] not in DIALECTS or parts[2] not in ("long", "stream") or parts[5] != "v1":
            return None
        try:
            a, b = int(parts[3]), int(parts[4])
        except ValueError:
            return None
        return parts[0], parts[1], parts[2], a, b, "/".join(parts[6:])

    def do_GET(self):
        r = self.route()
        if r and r[5] == "models":
            self.reply_json(200, {"object": "list", "data": [{"id": "bench-model", "object": "model"}]})
            return
        self.send_error(404)

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        r = self.route()
        if not r or r[5] != "chat/completions":
            self.send_error(404)
            return
        tag, dialect, mode, a, b, _ = r
        # The bodies of a long session grow to megabytes: count roles with a
        # regex (a quote inside a JSON string is escaped, so the pattern only
        # matches the keys themselves) instead of parsing every request.
        k = len(ROLE_ASSISTANT.findall(raw))
        # A tool that compacts its context drops old assistant messages: the
        # turn is then one past the newest call id the request carries.
        ids = [int(x) for x in CALL_ID.findall(raw)]
        if ids:
            k = max(k, max(ids) + 1)
        results = len(ROLE_TOOL.findall(raw))
        aside = not TOOLS.search(raw)
        m = MODEL.search(raw)
        req = {"model": m.group(1).decode() if m else "bench-model", "stream": bool(STREAM.search(raw))}
        with lock:
            with open(args.log, "a") as f:
                f.write(json.dumps({"tag": tag, "dialect": dialect, "mode": mode, "turn": k, "aside": aside,
                                    "results": results,
                                    "body_bytes": len(raw), "t": time.time()}) + "\n")
        text, calls, rate = "", [], 0
        if aside:
            text = "Bench session"
        elif mode == "long" and k < a:
            text, calls = turn_text(k), calls_for(dialect, k, b)
        elif mode == "long":
            text = f"All {a} turns done."
        elif k == 0:
            text, rate = stream_answer(b), a
        else:
            text = "Done."
        model = req.get("model", "bench-model")
        usage = {"prompt_tokens": 1000 + 10 * k, "completion_tokens": 20, "total_tokens": 1020 + 10 * k}
        finish = "tool_calls" if calls else "stop"
        if not req.get("stream"):
            msg = {"role": "assistant", "content": text or None}
            if calls:
                msg["tool_calls"] = [{"id": c["id"], "type": "function",
                                      "function": {"name": c["name"], "arguments": c["arguments"]}} for c in calls]
            self.reply_json(200, {"id": f"chatcmpl-{k}", "object": "chat.completion", "created": int(time.time()),
                                  "model": model, "choices": [{"index": 0, "message": msg, "finish_reason": finish}],
                                  "usage": usage})
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        base = {"id": f"chatcmpl-{k}", "object": "chat.completion.chunk", "created": int(time.time()), "model": model}

        def chunk(delta, fin=None):
            return b"data: " + json.dumps(dict(base, choices=[{"index": 0, "delta": delta, "finish_reason": fin}])).encode() + b"\n\n"

        out = [chunk({"role": "assistant", "content": ""})]
        if rate:
            # Paced: one 4-character delta every 1/rate s, each flushed alone.
            self.wfile.write(out[0])
            self.wfile.flush()
            out = []
            start = time.monotonic()
            for n, i in enumerate(range(0, len(text), 4)):
                wait = start + n / rate - time.monotonic()
                if wait > 0:
                    time.sleep(wait)
                self.wfile.write(chunk({"content": text[i:i + 4]}))
                self.wfile.flush()
                if n == 0:
                    first = time.time()
            with lock:
                with open(args.log, "a") as f:
                    f.write(json.dumps({"tag": tag, "dialect": dialect, "mode": mode, "stream_start": first,
                                        "stream_end": time.time(), "deltas": n + 1, "chars": len(text)}) + "\n")
        else:
            for i in range(0, len(text), 16):
                out.append(chunk({"content": text[i:i + 16]}))
        for idx, c in enumerate(calls):
            out.append(chunk({"tool_calls": [{"index": idx, "id": c["id"], "type": "function",
                                              "function": {"name": c["name"], "arguments": ""}}]}))
            out.append(chunk({"tool_calls": [{"index": idx, "function": {"arguments": c["arguments"]}}]}))
        out.append(chunk({}, finish))
        out.append(b"data: " + json.dumps(dict(base, choices=[], usage=usage)).encode() + b"\n\n")
        out.append(b"data: [DONE]\n\n")
        self.wfile.write(b"".join(out))
        self.wfile.flush()
        self.close_connection = True


srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
with open(args.portfile + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(args.portfile + ".tmp", args.portfile)
srv.serve_forever()
