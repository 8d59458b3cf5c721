// An ACP client on the official TypeScript SDK's client side
// (@agentclientprotocol/sdk 2.4.0: client() + ndJsonStream over the child's
// stdio) that drives `agent acp` through e2e/acp_test.go's story. Usage:
// node client.mjs CONFIG.json. One line a step; "FAIL: ..." and exit 1 at the
// first failing step (each step needs the one before).
import * as acp from "@agentclientprotocol/sdk";
import { spawn, execFileSync } from "node:child_process";
import { Readable, Writable } from "node:stream";
import fs from "node:fs";
import path from "node:path";

const cfg = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const procs = [];
let current = "start";
class StepFail extends Error { }
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const cut = (v, n = 300) => { const s = typeof v === "string" ? v : JSON.stringify(v); return s && s.length > n ? s.slice(0, n) + "…" : s; };
process.on("exit", () => { for (const p of procs) if (p.exitCode === null && p.signalCode === null) { try { p.kill("SIGKILL"); } catch { } } });

function startAgent(tag) {
  const child = spawn(cfg.agent, ["acp"], { cwd: cfg.ws, env: process.env, stdio: ["pipe", "pipe", "pipe"] });
  procs.push(child);
  const a = { tag, child, updates: [], perms: [], nonJson: [], exit: null, stderr: "", policy: () => "allow_once" };
  child.on("exit", (code, signal) => { a.exit = { code, signal }; });
  child.stdin.on("error", () => { });
  child.stderr.on("data", (d) => { a.stderr = (a.stderr + d).slice(-4000); });
  const [forSdk, forTap] = Readable.toWeb(child.stdout).tee();
  (async () => {
    const dec = new TextDecoder(); let buf = "";
    for await (const c of forTap) {
      buf += dec.decode(c, { stream: true });
      let i;
      while ((i = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, i).trim(); buf = buf.slice(i + 1);
        if (!line) continue;
        try { JSON.parse(line); } catch { a.nonJson.push(line); }
      }
    }
  })().catch(() => { });
  const app = acp.client({ name: "agent-e2e" })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      const kind = a.policy(params);
      const opt = (params.options || []).find((o) => o.kind === kind);
      a.perms.push({ at: Date.now(), params, chose: kind });
      if (!opt) return { outcome: { outcome: "cancelled" } };
      return { outcome: { outcome: "selected", optionId: opt.optionId } };
    })
    .onNotification(acp.methods.client.session.update, ({ params }) => { a.updates.push({ at: Date.now(), ...params }); });
  a.agent = app.connect(acp.ndJsonStream(Writable.toWeb(child.stdin), forSdk)).agent;
  return a;
}
function describe(e) {
  if (e && typeof e === "object" && typeof e.code === "number") return `JSON-RPC error ${e.code}: ${e.message}`;
  return String((e && e.message) || e);
}
async function call(a, method, params, ms = 30000) {
  let timer;
  const p = a.agent.request(method, params);
  p.catch(() => { });
  const late = new Promise((_, rej) => { timer = setTimeout(() => rej(new StepFail(`${method}: no answer within ${ms / 1000} s; stderr: ${cut(a.stderr)}`)), ms); });
  try { return await Promise.race([p, late]); }
  catch (e) { if (e instanceof StepFail) throw e; throw new StepFail(`${method} failed: ${describe(e)}; stderr: ${cut(a.stderr)}`); }
  finally { clearTimeout(timer); }
}
async function step(name, fn) {
  current = name;
  let note;
  try { note = await fn(); }
  catch (e) { console.log(`FAIL: ${name}: ${e instanceof StepFail ? e.message : (e && e.stack) || e}`); process.exit(1); }
  console.log(`ok: ${name}${note ? " (" + note + ")" : ""}`);
}
async function waitFor(pred, ms) {
  const end = Date.now() + ms;
  for (; ;) { const v = await pred(); if (v) return v; if (Date.now() > end) return null; await sleep(50); }
}
const pgrep = (pat) => { try { return execFileSync("pgrep", ["-f", pat], { encoding: "utf8" }).trim().split("\n").filter(Boolean); } catch { return []; } };
const since = (a, sid, t) => a.updates.filter((u) => u.sessionId === sid && u.at >= t).map((u) => u.update);
const text = (ups, kind) => ups.filter((u) => u.sessionUpdate === kind).map((u) => (u.content && u.content.type === "text") ? u.content.text : "").join("");
const file = (f) => { try { return fs.readFileSync(path.join(cfg.ws, f), "utf8"); } catch { return null; } };
const prompt = (a, sid, t, ms) => call(a, acp.methods.agent.session.prompt, { sessionId: sid, prompt: [{ type: "text", text: t }] }, ms);
const init = { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false } };

const A = startAgent("first");
let sid;
await step("initialize", async () => {
  const r = await call(A, acp.methods.agent.initialize, init);
  if (!r.agentCapabilities || r.agentCapabilities.loadSession !== true) throw new StepFail(`loadSession not true: ${cut(r)}`);
  const pc = r.agentCapabilities.promptCapabilities || {};
  if (pc.embeddedContext !== true) throw new StepFail(`promptCapabilities.embeddedContext not true: ${cut(pc)}`);
  return `protocol ${r.protocolVersion}`;
});
await step("session/new", async () => {
  const r = await call(A, acp.methods.agent.session.new, { cwd: cfg.ws, mcpServers: [] });
  sid = r.sessionId;
  const modes = ((r.modes || {}).availableModes || []).map((m) => m.id);
  for (const m of ["read-only", "ask", "auto-edit", "full-auto"]) if (!modes.includes(m)) throw new StepFail(`mode ${m} missing: ${cut(r.modes)}`);
  if (r.modes.currentModeId !== "ask") throw new StepFail(`current mode ${r.modes.currentModeId}, want ask`);
  return sid;
});
await step("a prompt streams text and an edit asks permission (allow once)", async () => {
  A.policy = () => "allow_once";
  const t = Date.now();
  const r = await prompt(A, sid, cfg.prompt1);
  if (r.stopReason !== "end_turn") throw new StepFail(`stopReason ${r.stopReason}`);
  const ups = since(A, sid, t);
  const said = text(ups, "agent_message_chunk");
  if (!said.includes(cfg.text1) || !said.includes(cfg.answer1)) throw new StepFail(`text: ${cut(said)}`);
  if (A.perms.length !== 1) throw new StepFail(`${A.perms.length} permission requests, want 1`);
  const kinds = A.perms[0].params.options.map((o) => o.kind).sort().join(",");
  if (kinds !== "allow_always,allow_once,reject_always,reject_once") throw new StepFail(`options ${kinds}`);
  if (!String(file(cfg.editFile)).includes(cfg.editNew)) throw new StepFail(`${cfg.editFile}: ${cut(file(cfg.editFile))}`);
  const tc = ups.find((u) => u.sessionUpdate === "tool_call" && u.kind === "edit");
  if (!tc) throw new StepFail(`no tool_call of kind edit: ${cut(ups.map((u) => u.sessionUpdate))}`);
  if (!(tc.locations || []).some((l) => l.path === path.join(cfg.ws, cfg.editFile))) throw new StepFail(`locations ${cut(tc.locations)}`);
  const done = ups.find((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === tc.toolCallId && u.status === "completed");
  if (!done) throw new StepFail("no completed tool_call_update for the edit");
  const diff = (done.content || []).find((c) => c.type === "diff");
  if (!diff || diff.path !== path.join(cfg.ws, cfg.editFile) || !diff.newText.includes(cfg.editNew) || diff.oldText.includes(cfg.editNew) || !diff.oldText.includes(cfg.editOld))
    throw new StepFail(`the completed edit's diff: ${cut(diff)}`);
  const before = text(ups.filter((u, i) => i < ups.indexOf(tc)), "agent_message_chunk");
  if (!before.includes(cfg.text1)) throw new StepFail("the text did not stream before the tool call");
  return `${ups.length} updates`;
});
await step("a rejected command never runs", async () => {
  A.policy = () => "reject_once";
  const n = A.perms.length, t = Date.now();
  const r = await prompt(A, sid, cfg.prompt2);
  if (A.perms.length !== n + 1) throw new StepFail(`${A.perms.length - n} permission requests, want 1`);
  if (A.perms[n].params.toolCall.kind !== "execute") throw new StepFail(`kind ${A.perms[n].params.toolCall.kind}`);
  if (file(cfg.rejectFile) !== null) throw new StepFail("the rejected command ran");
  const failed = since(A, sid, t).find((u) => u.sessionUpdate === "tool_call_update" && u.status === "failed");
  if (!failed) throw new StepFail("no failed tool_call_update for the rejected call");
  return `stopReason ${r.stopReason}`;
});
await step("allow always, then the same call runs without asking", async () => {
  A.policy = () => "allow_always";
  const n = A.perms.length;
  const r = await prompt(A, sid, cfg.prompt3);
  if (r.stopReason !== "end_turn") throw new StepFail(`stopReason ${r.stopReason}`);
  if (A.perms.length !== n + 1) throw new StepFail(`${A.perms.length - n} permission requests, want 1`);
  const lines = String(file(cfg.alwaysFile)).split("\n").filter(Boolean).length;
  if (lines !== 2) throw new StepFail(`${cfg.alwaysFile} has ${lines} lines, want 2`);
});
await step("session/cancel during a command", async () => {
  A.policy = () => "allow_once";
  const p = A.agent.request(acp.methods.agent.session.prompt, { sessionId: sid, prompt: [{ type: "text", text: cfg.prompt4 }] });
  p.catch(() => { });
  if (!(await waitFor(() => pgrep(cfg.cancelPattern).length > 0, 20000))) throw new StepFail("the command never started");
  await A.agent.notify(acp.methods.agent.session.cancel, { sessionId: sid });
  const r = await p;
  if (r.stopReason !== "cancelled") throw new StepFail(`stopReason ${r.stopReason}`);
  if (pgrep(cfg.cancelPattern).length) throw new StepFail("the command's processes are still there after the prompt ended");
});
await step("SIGKILL of agent acp mid-command", async () => {
  A.policy = () => "allow_once";
  const p = A.agent.request(acp.methods.agent.session.prompt, { sessionId: sid, prompt: [{ type: "text", text: cfg.prompt5 }] });
  p.catch(() => { });
  if (!(await waitFor(() => (file(cfg.killFile) || "").length > 0, 20000))) throw new StepFail(`${cfg.killFile} never appeared`);
  A.child.kill("SIGKILL");
  if (!(await waitFor(() => A.exit, 5000))) throw new StepFail("agent acp is still there");
});
const B = startAgent("second");
await step("a new agent acp loads the session: the transcript replays", async () => {
  await call(B, acp.methods.agent.initialize, init);
  B.policy = () => "reject_once";
  const t = Date.now();
  await call(B, acp.methods.agent.session.load, { sessionId: sid, cwd: cfg.ws, mcpServers: [] });
  const ups = since(B, sid, t);
  if (!text(ups, "user_message_chunk").includes(cfg.prompt1)) throw new StepFail(`no user_message_chunk with the first prompt: ${cut(ups.map((u) => u.sessionUpdate))}`);
  if (!text(ups, "agent_message_chunk").includes(cfg.answer1)) throw new StepFail("the first answer did not replay");
  if (!ups.some((u) => u.sessionUpdate === "tool_call" && u.kind === "execute")) throw new StepFail("no command replayed");
  if (pgrep(cfg.killPattern).length) throw new StepFail("the killed command's processes survived the load");
  return `${ups.length} updates`;
});
await step("the session goes on; the killed command is not run again", async () => {
  const r = await prompt(B, sid, cfg.prompt6);
  if (r.stopReason !== "end_turn") throw new StepFail(`stopReason ${r.stopReason}`);
  const n = String(file(cfg.killFile)).split("\n").filter(Boolean).length;
  if (n !== 1) throw new StepFail(`${cfg.killFile} has ${n} lines, want 1`);
  if (B.perms.length) throw new StepFail("the load asked about the killed command");
});
let cps;
await step("_agent/checkpoints lists the edit", async () => {
  const r = await call(B, "_agent/checkpoints", { sessionId: sid });
  cps = r.checkpoints || [];
  const edit = cps.find((c) => c.tool === "edit_file" && c.kind === "after" && c.before);
  if (!edit) throw new StepFail(`no paired after-checkpoint of edit_file: ${cut(cps)}`);
  if (edit.added < 1 || edit.removed < 1) throw new StepFail(`counts +${edit.added} -${edit.removed}`);
  return `${cps.length} checkpoints`;
});
let undo;
await step("_agent/rollback puts the file back", async () => {
  const edit = cps.find((c) => c.tool === "edit_file" && c.kind === "after");
  const r = await call(B, "_agent/rollback", { sessionId: sid, checkpointId: edit.before, what: "files" });
  if (String(file(cfg.editFile)).includes(cfg.editNew)) throw new StepFail(`${cfg.editFile} still edited: ${cut(r)}`);
  if (!r.undo) throw new StepFail(`no undo checkpoint: ${cut(r)}`);
  undo = r.undo;
});
await step("_agent/rollback to its undo checkpoint redoes it", async () => {
  await call(B, "_agent/rollback", { sessionId: sid, checkpointId: undo, what: "files" });
  if (!String(file(cfg.editFile)).includes(cfg.editNew)) throw new StepFail(`${cfg.editFile}: ${cut(file(cfg.editFile))}`);
});
await step("_agent/context reports the last request", async () => {
  const r = await call(B, "_agent/context", { sessionId: sid });
  if (!r.context || !r.step) throw new StepFail(cut(r));
  return `step ${r.step}`;
});
await step("stdout carries JSON-RPC only", async () => {
  const bad = [...A.nonJson, ...B.nonJson];
  if (bad.length) throw new StepFail(`non-JSON on stdout: ${cut(bad[0])}`);
});
await step("closing stdin ends agent acp", async () => {
  B.child.stdin.end();
  if (!(await waitFor(() => B.exit, 10000))) throw new StepFail("agent acp did not exit");
  if (B.exit.code !== 0) throw new StepFail(`exit ${B.exit.code ?? B.exit.signal}; stderr: ${cut(B.stderr)}`);
});
process.exit(0);
