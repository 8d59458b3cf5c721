#!/usr/bin/env python3
"""One scripted OpenAI-compatible streaming server for the per-step CPU bench.

It replays the same scripted steps to every agent it serves, each in that
agent's own tool dialect. The base URL names the dialect, the command mix and
the number of steps:

    http://127.0.0.1:PORT/<tag>/<dialect>/<mix>/<steps>/v1

tag:     any word; it only labels the requests of one run in the log

dialect: agent   write_file{path,content}, run_command{command}
         crush   write{file_path,content}, bash{command,description}
mix:     echo    odd steps run `echo ...` (a shell builtin: Crush's in-process
                 interpreter runs it without a process; ours runs bash -c)
         exec    odd steps run `cat FILE` (an external program for both)
         writes  every step writes bench/wKK.txt
         echos   every step runs `echo bench step K`
         prime   every step runs `true` (to warm a state directory up)
         cycle   check 24's steps, four to a file: write cK.txt, read it,
                 edit it ("line K" -> "LINE K"), then `echo K >> side.log`
steps:   how many tool steps before the final answer (0: answer at once)

Step k (0-based) is the number of assistant messages already in the request,
so the reply does not depend on anything but the conversation. Even steps
write bench/wK.txt, odd steps run the command; each call is one streamed
tool call in its own turn. A request that offers no tools (Crush's session
title) gets a short text reply outside the script.

Every request is logged to --log as one JSON line: tag, dialect, step, the number
of tools offered, and the last tool result the request carried (so the
harness can check that every step ran and reached the model).
Loopback only; it stops on SIGTERM.
"""
import argparse
import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ap = argparse.ArgumentParser()
ap.add_argument("--portfile", required=True)
ap.add_argument("--log", required=True)
args = ap.parse_args()
lock = threading.Lock()

DIALECTS = {
    "agent": {
        "write": lambda path, content: ("write_file", {"path": path, "content": content}),
        "exec": lambda cmd: ("run_command", {"command": cmd}),
        "read": lambda path: ("read_file", {"path": path}),
        "edit": lambda path, old, new: ("edit_file", {"path": path, "old_string": old, "new_string": new}),
    },
    "crush": {
        "write": lambda path, content: ("write", {"file_path": path, "content": content}),
        "exec": lambda cmd: ("bash", {"command": cmd, "description": "bench step"}),
        "read": lambda path: ("view", {"file_path": path}),
        "edit": lambda path, old, new: ("edit", {"file_path": path, "old_string": old, "new_string": new}),
    },
}


def content_of(k):
    # ~1 kB of text, different for every step.
    return "".join(f"step {k} line {j}: the quick brown fox jumps over the lazy dog\n" for j in range(16))


def call_for(dialect, mix, k):
    d = DIALECTS[dialect]
    if mix == "prime":
        return d["exec"]("true")
    if mix == "cycle":
        i, j = divmod(k, 4)
        path = f"bench/c{i}.txt"
        return [lambda: d["write"](path, f"line {i}\n"), lambda: d["read"](path),
                lambda: d["edit"](path, f"line {i}", f"LINE {i}"), lambda: d["exec"](f"echo {i} >> side.log")][j]()
    if mix == "writes":
        return d["write"](f"bench/w{k:02d}.txt", content_of(k))
    if mix == "echos":
        return d["exec"](f"echo bench step {k}")
    if k % 2 == 0:
        return d["write"](f"bench/w{k:02d}.txt", content_of(k))
    if mix == "echo":
        return d["exec"](f"echo bench step {k}")
    return d["exec"](f"cat bench/w{k - 1:02d}.txt")


def last_tool_result(messages):
    for m in reversed(messages):
        if m.get("role") == "tool":
            c = m.get("content")
            if isinstance(c, list):
                c = " ".join(p.get("text", "") for p in c if isinstance(p, dict))
            return (c or "")[:200]
    return None


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
        parts = self.path.strip("/").split("/")
        # <tag>/<dialect>/<mix>/<steps>/v1/<endpoint...>
        if len(parts) < 6:
            return None
        self.tag, parts = parts[0], parts[1:]
        if len(parts) < 5 or parts[0] not in DIALECTS or parts[1] not in ("echo", "exec", "writes", "echos", "prime", "cycle") or parts[3] != "v1":
            return None
        try:
            n = int(parts[2])
        except ValueError:
            return None
        return parts[0], parts[1], n, "/".join(parts[4:])

    def do_GET(self):
        r = self.route()
        if r and r[3] == "models":
            self.reply_json(200, {"object": "list", "data": [{"id": "bench-model", "object": "model"}]})
            return
        self.send_error(404)

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(n)
        r = self.route()
        if not r or r[3] != "chat/completions":
            self.send_error(404)
            return
        dialect, mix, steps, _ = r
        req = json.loads(raw)
        msgs = req.get("messages", [])
        k = sum(1 for m in msgs if m.get("role") == "assistant")
        aside = not req.get("tools")
        with lock:
            with open(args.log, "a") as f:
                f.write(json.dumps({"tag": self.tag, "dialect": dialect, "mix": mix, "steps": steps, "step": k, "aside": aside,
                                    "tools": len(req.get("tools") or []), "last_result": last_tool_result(msgs)}) + "\n")
        calls = []
        text = ""
        if aside:
            text = "Bench run"
        elif k < steps:
            name, a = call_for(dialect, mix, k)
            calls = [{"id": f"call_{k}", "name": name, "arguments": json.dumps(a)}]
        else:
            text = "All steps done."
        model = req.get("model", "bench-model")
        usage = {"prompt_tokens": 1000 + 100 * k, "completion_tokens": 20, "total_tokens": 1020 + 100 * k}
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
        out = []

        def emit(delta, fin=None):
            out.append(b"data: " + json.dumps(dict(base, choices=[{"index": 0, "delta": delta, "finish_reason": fin}])).encode() + b"\n\n")

        emit({"role": "assistant", "content": ""})
        for i in range(0, len(text), 8):
            emit({"content": text[i:i + 8]})
        for idx, c in enumerate(calls):
            emit({"tool_calls": [{"index": idx, "id": c["id"], "type": "function",
                                  "function": {"name": c["name"], "arguments": ""}}]})
            a = c["arguments"]
            third = max(1, len(a) // 3 + 1)
            for j in range(0, len(a), third):
                emit({"tool_calls": [{"index": idx, "function": {"arguments": a[j:j + third]}}]})
        emit({}, finish)
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
