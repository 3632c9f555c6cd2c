/**
 * The offline demo agent (examples/demo-agent.mjs) driven by the real ACP runner, talking to
 * a real IPC socket through the real `culture channel` CLI (packages/cli/dist: build first).
 */
import { IpcServer, silentLogger, type IpcRequest } from "@culture/core";
import { socketPath } from "@culture/core/paths";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AcpRunner } from "../src/acp-runner.js";
import { createHarness, record, type Harness } from "./fake-agent-harness.js";

const DEMO_AGENT = fileURLToPath(new URL("../../../examples/demo-agent.mjs", import.meta.url));
const CLI = fileURLToPath(new URL("../../cli/dist/main.js", import.meta.url));

let h: Harness;
let server: IpcServer;
let sends: IpcRequest[];
let runner: AcpRunner;

beforeEach(async () => {
  h = createHarness();
  sends = [];
  const env = { ...process.env, XDG_RUNTIME_DIR: h.root };
  server = new IpcServer({
    path: socketPath("spark-demo", env),
    env,
    logger: silentLogger,
    handler: async (req) => {
      if (req.type !== "irc_send") return { ok: false, error: `unexpected ${req.type}` };
      sends.push(req);
      return { ok: true, data: {} };
    },
  });
  await server.start();
  const ctx = h.context({
    nick: "spark-demo",
    systemPrompt: "You are spark-demo on IRC.",
    acp: { acp_command: [process.execPath, DEMO_AGENT] },
    extraEnv: { XDG_RUNTIME_DIR: h.root, CULTURE_NICK: "spark-demo" },
  });
  runner = new AcpRunner(ctx);
});

afterEach(async () => {
  await runner.stop();
  await server.stop();
  h.cleanup();
});

describe("examples/demo-agent.mjs", () => {
  it("finds the built culture CLI (npm run build first)", () => {
    expect(existsSync(CLI), `${CLI} is missing: run npm run build`).toBe(true);
  });

  it("answers mentions and DMs through `culture channel send`, and replies with the same text", async () => {
    const rec = record(runner);
    await runner.start();
    // The system prompt's acknowledgement goes nowhere.
    expect(sends).toEqual([]);
    await runner.sendPrompt("[IRC @mention in #general] <alice> @spark-demo hello");
    await runner.sendPrompt("[IRC @mention in #general] <alice> @spark-demo echo ship it");
    await runner.sendPrompt("[IRC DM] <bob> what is this?");
    await runner.sendPrompt("[IRC @mention in #ops] <carol> @spark-demo time");
    const sent = sends.map((r) => [r.channel, r.message]);
    expect(sent.slice(0, 3)).toEqual([
      ["#general", `alice: Hello alice! I'm spark-demo, culture's demo agent. Say "help" to see what I can do.`],
      ["#general", "alice: ship it"],
      ["bob", "bob: I heard: what is this?"],
    ]);
    expect(sent[3]![0]).toBe("#ops");
    expect(sent[3]![1]).toMatch(/^carol: It is \d\d:\d\d:\d\d UTC\.$/);
    expect(rec.texts()).toEqual(sent.map(([, message]) => message));
    // Each send is reported as a tool call for the supervisor.
    const uses = rec.messages.flatMap((m) => m.content.filter((b) => b.type === "tool_use"));
    expect(uses).toHaveLength(4);
    expect(uses[0]).toMatchObject({ name: "culture channel send #general" });
  });
});
