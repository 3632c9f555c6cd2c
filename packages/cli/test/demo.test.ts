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
const DEMO_AGENT = fileURLToPath(new URL("../dist/demo-agent.js", import.meta.url));

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

  it("the shipped demo agent still validates what it is sent (its ACP schemas are built when first used)", async () => {
    // scripts/lazy-acp-schemas.mjs wraps the bundled SDK's schemas in z.lazy: a malformed
    // request must still be refused, and a good one answered.
    const agent = spawn(process.execPath, [DEMO_AGENT], { stdio: ["pipe", "pipe", "inherit"] });
    const replies = new Map<number, (m: Record<string, unknown>) => void>();
    createInterface({ input: agent.stdout! }).on("line", (line) => {
      const m = JSON.parse(line) as Record<string, unknown>;
      if (typeof m.id === "number" && !("method" in m)) replies.get(m.id)?.(m);
    });
    let next = 0;
    const call = (method: string, params: unknown) =>
      new Promise<Record<string, unknown>>((resolve) => {
        const id = ++next;
        replies.set(id, resolve);
        agent.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
      });
    try {
      expect(await call("initialize", { protocolVersion: "one" })).toMatchObject({ error: { code: -32602 } });
      expect(await call("initialize", { protocolVersion: 1, clientCapabilities: {} })).toMatchObject({ result: { protocolVersion: 1 } });
      const { result } = (await call("session/new", { cwd: "/", mcpServers: [] })) as { result: { sessionId: string } };
      expect(await call("session/prompt", { sessionId: result.sessionId, prompt: "hello" })).toMatchObject({ error: { code: -32602 } });
      expect(await call("session/prompt", { sessionId: result.sessionId, prompt: [{ type: "text" }] })).toMatchObject({ error: { code: -32602 } });
      const ok = await call("session/prompt", { sessionId: result.sessionId, prompt: [{ type: "text", text: "you are spark-demo" }] });
      expect(ok).toMatchObject({ result: { stopReason: "end_turn" } });
    } finally {
      agent.kill();
    }
  });

  it("ships the demo agent as one module: the ACP SDK and zod bundled, nothing imported but node builtins", () => {
    // Each agent of a fleet loads it: zod as a package is ~100 ES modules (issue 30).
    const source = readFileSync(DEMO_AGENT, "utf8");
    const specifiers = [...source.matchAll(/(?:\bfrom ?|\bimport ?\(?)"([^"]+)"/g)].map((m) => m[1]!);
    expect(specifiers.length).toBeGreaterThan(0);
    expect(specifiers.filter((s) => !builtinModules.includes(s.replace(/^node:/, "")))).toEqual([]);
  });
});
