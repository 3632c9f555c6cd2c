/**
 * `culture demo` as a user runs it: the built CLI as a subprocess, with the embedded server,
 * a real daemon and the offline demo agent (a real ACP agent process).
 */
import { readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { fileURLToPath } from "node:url";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { execa } from "execa";
import { describe, expect, it } from "vitest";

const CLI = fileURLToPath(new URL("../dist/main.js", import.meta.url));
const DEMO_AGENT = fileURLToPath(new URL("../dist/demo-agent.cjs", import.meta.url));

describe("culture demo", () => {
  it("--once shows the mention, the exact prompt, the agent's reply on IRC and the status table", async () => {
    const run = await execa(process.execPath, [CLI, "demo", "--once"], { reject: false, timeout: 90_000 });
    expect(run.stderr).toBe("");
    expect(run.exitCode).toBe(0);
    const out = run.stdout;
    expect(out).toMatch(/embedded IRC server listening on 127\.0\.0\.1:\d+/);
    expect(out).toContain("agent spark-demo connected and joined #general");
    expect(out).toContain("the agent receives this prompt: [IRC @mention in #general] <human> @spark-demo hello");
    expect(out).toContain(`<spark-demo> human: Hello human! I'm spark-demo, culture's demo agent.`);
    expect(out).toMatch(/spark-demo\s+running\s+connected\s+\d+\s+acp\s+idle/);
  });

  it("keeps running for a real IRC client and stops cleanly on SIGINT", async () => {
    const child = execa(process.execPath, [CLI, "demo"], { reject: false, timeout: 90_000 });
    let seen = "";
    await new Promise<void>((resolve) => {
      child.stdout!.on("data", (d: Buffer) => {
        seen += d.toString();
        if (seen.includes("Press Ctrl-C to stop")) resolve();
      });
    });
    expect(seen).toMatch(/irssi -c 127\.0\.0\.1 -p \d+ -w you:\S+ -n you/);
    child.kill("SIGINT");
    const done = await child;
    expect(done.exitCode).toBe(0);
    expect(done.stdout).toContain("Stopping...");
  });

  it("the shipped demo agent answers ACP's JSON-RPC: bad input gets a coded error, and it keeps serving", async () => {
    // The demo agent speaks ACP itself (no SDK): what it refuses, and how, is the protocol's.
    const agent = spawn(process.execPath, [DEMO_AGENT], { stdio: ["pipe", "pipe", "pipe"] });
    let stderr = "";
    agent.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    const lines: Record<string, unknown>[] = [];
    const waiting: Array<{ want: (m: Record<string, unknown>) => boolean; resolve: (m: Record<string, unknown>) => void }> = [];
    createInterface({ input: agent.stdout! }).on("line", (line) => {
      const m = JSON.parse(line) as Record<string, unknown>;
      lines.push(m);
      const i = waiting.findIndex((w) => w.want(m));
      if (i >= 0) waiting.splice(i, 1)[0]!.resolve(m);
    });
    const next = (want: (m: Record<string, unknown>) => boolean) => new Promise<Record<string, unknown>>((resolve) => waiting.push({ want, resolve }));
    let id = 0;
    const send = (line: string) => agent.stdin!.write(`${line}\n`);
    const call = (method: string, params: unknown) => {
      const mine = ++id;
      const answer = next((m) => m.id === mine && !("method" in m));
      send(JSON.stringify({ jsonrpc: "2.0", id: mine, method, params }));
      return answer;
    };
    try {
      expect(await call("initialize", { protocolVersion: "one" })).toMatchObject({ error: { code: -32602 } });
      expect(await call("initialize", { protocolVersion: 1, clientCapabilities: {} })).toMatchObject({ result: { protocolVersion: 1, agentCapabilities: { loadSession: false } } });
      expect(await call("session/new", { cwd: 7 })).toMatchObject({ error: { code: -32602 } });
      const { result } = (await call("session/new", { cwd: "/", mcpServers: [] })) as { result: { sessionId: string } };
      expect(await call("session/prompt", { sessionId: result.sessionId, prompt: "hello" })).toMatchObject({ error: { code: -32602 } });
      expect(await call("session/prompt", { sessionId: result.sessionId, prompt: [{ type: "text" }] })).toMatchObject({ error: { code: -32602 } });
      expect(await call("session/prompt", { sessionId: "demo-nobody", prompt: [] })).toMatchObject({ error: { code: -32002, data: { sessionId: "demo-nobody" } } });
      expect(await call("session/load", { sessionId: result.sessionId })).toMatchObject({ error: { code: -32601, data: { method: "session/load" } } });
      // A line that is not JSON, and one that is not JSON-RPC: an error each, and the next line is served.
      const parseError = next((m) => (m.error as { code?: number } | undefined)?.code === -32700);
      send(`{"jsonrpc":"2.0","id":99,"method":"initialize"`);
      expect(await parseError).toMatchObject({ id: null, error: { code: -32700 } });
      expect(await call("initialize", { protocolVersion: 1 })).toMatchObject({ result: { protocolVersion: 1 } });
      const notRpc = next((m) => m.id === "x");
      send(JSON.stringify({ id: "x", method: "initialize" }));
      expect(await notRpc).toMatchObject({ error: { code: -32600 } });
      // A notification is not answered; a system prompt is acknowledged with a message chunk, then the result.
      send(JSON.stringify({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: result.sessionId } }));
      const before = lines.length;
      const ok = await call("session/prompt", { sessionId: result.sessionId, prompt: [{ type: "text", text: "you are spark-demo" }, { type: "image", data: "", mimeType: "image/png" }] });
      expect(ok).toMatchObject({ result: { stopReason: "end_turn" } });
      expect(lines.slice(before)).toEqual([
        { jsonrpc: "2.0", method: "session/update", params: { sessionId: result.sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Ready." } } } },
        ok,
      ]);
      expect(stderr).toContain("a line on stdin is not JSON");
      const exited = new Promise<number | null>((resolve) => agent.on("exit", resolve));
      agent.stdin!.end();
      expect(await exited).toBe(0);
    } finally {
      agent.kill();
    }
  });

  it("ships the demo agent as one small CommonJS file that loads nothing but node builtins", () => {
    // Each agent of a fleet loads it (issue 30): with the ACP SDK and zod bundled it was 216 KB,
    // and an ES module (Node's ES module loader: ~5 ms of CPU more per start).
    const source = readFileSync(DEMO_AGENT, "utf8");
    expect(source).not.toMatch(/^\s*(import|export)\b/m);
    const specifiers = [...source.matchAll(/(?:\bfrom ?|\bimport ?\(?|\brequire\()"([^"]+)"/g)].map((m) => m[1]!);
    expect(specifiers.length).toBeGreaterThan(0);
    expect(source.length).toBeLessThan(16_000);
    expect(specifiers.filter((s) => !builtinModules.includes(s.replace(/^node:/, "")))).toEqual([]);
  });
});
