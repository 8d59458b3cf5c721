// An ACP client on the official TypeScript SDK (@agentclientprotocol/sdk
// 2.4.0) for e2e/acp_subagents_test.go: one prompt whose task calls start
// subagents; it allows every permission asked and prints, as one JSON line,
// the session/update notifications and the permission requests it saw.
// Usage: node subagents.mjs CONFIG.json.
import * as acp from "@agentclientprotocol/sdk";
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import fs from "node:fs";

const cfg = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const child = spawn(cfg.agent, ["acp"], { cwd: cfg.ws, env: process.env, stdio: ["pipe", "pipe", "pipe"] });
let stderr = "";
child.stderr.on("data", (d) => { stderr = (stderr + d).slice(-4000); });
const updates = [], perms = [];
const app = acp.client({ name: "agent-e2e-subagents" })
  .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
    perms.push(params);
    const opt = (params.options || []).find((o) => o.kind === "allow_once");
    return { outcome: { outcome: "selected", optionId: opt.optionId } };
  })
  .onNotification(acp.methods.client.session.update, ({ params }) => { updates.push(params.update); });
const agent = app.connect(acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout))).agent;
const timer = setTimeout(() => { console.log(JSON.stringify({ error: "timeout", stderr })); process.exit(1); }, 120000);
try {
  await agent.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
  const s = await agent.request(acp.methods.agent.session.new, { cwd: cfg.ws, mcpServers: [] });
  const r = await agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: "text", text: cfg.prompt }] });
  console.log(JSON.stringify({ stopReason: r.stopReason, updates, perms }));
} catch (e) {
  console.log(JSON.stringify({ error: String((e && e.message) || e), stderr }));
}
clearTimeout(timer);
child.stdin.end();
child.kill();
process.exit(0);
