/**
 * The ACP backend inside a real daemon on a real IRC server (the embedded one), with the fake
 * ACP agent as a real process spoken to through the real SDK.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startServer, type IrcServer } from "@culture/server";
import { connectRawClient, parseRawLine, type RawIrcClient } from "@culture/core/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { eventually, startTestDaemon, type TestDaemon } from "@culture/core/testing";

const FAKE = fileURLToPath(new URL("./fixtures/fake-acp-agent.mjs", import.meta.url));

describe("the acp backend in a daemon", () => {
  let irc: IrcServer;
  const cleanups: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    irc = await startServer({ host: "127.0.0.1", port: 0, stateDir: null });
  });
  afterAll(async () => {
    await irc?.close();
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  });

  /** A daemon whose agent is the fake; when `<dir>/auth` exists, the next agent process requires authentication. */
  async function daemon(): Promise<{ d: TestDaemon; dir: string; pids: () => Set<number> }> {
    const dir = mkdtempSync(join(tmpdir(), "culture-acp-e2e-"));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const log = join(dir, "requests.jsonl");
    const script =
      `export FAKE_ACP_LOG='${log}' FAKE_ACP_STATE='${join(dir, "state")}'; ` +
      `if [ -f '${join(dir, "auth")}' ]; then export FAKE_ACP_AUTH_REQUIRED=1 FAKE_ACP_NO_LOAD=1; fi; exec '${process.execPath}' '${FAKE}'`;
    const d = await startTestDaemon({
      port: irc.port,
      nick: "spark-acp",
      agent: { agent: "acp", acp_command: ["sh", "-c", script] },
      // A test server without accounts: operators by nick is the explicit opt-in.
      config: { operators: ["olga"], operators_by_nick: true },
    });
    cleanups.push(() => d.stop());
    const pids = () =>
      new Set(
        existsSync(log)
          ? readFileSync(log, "utf8")
              .split("\n")
              .filter(Boolean)
              .map((l) => (JSON.parse(l) as { pid: number }).pid)
          : [],
      );
    return { d, dir, pids };
  }

  async function human(nick: string): Promise<RawIrcClient> {
    const c = await connectRawClient(irc.port, nick);
    cleanups.push(() => c.close());
    await c.join("#test");
    await c.join("#alerts");
    return c;
  }

  const privmsg = (target: string, text: RegExp) => (line: string) => {
    const p = parseRawLine(line);
    return p.command === "PRIVMSG" && p.nick === "spark-acp" && p.params[0] === target && text.test(p.params[1] ?? "");
  };

  it("relays the reply to the exact mention prompt, and never the system prompt's reply", async () => {
    const { d } = await daemon();
    const olga = await human("olga");
    olga.send("PRIVMSG #test :@spark-acp hello there");
    const reply = await olga.waitFor(privmsg("#test", /./));
    expect(parseRawLine(reply).params[1]).toBe("I heard: [IRC @mention in #test] <olga> @spark-acp hello there");
    await eventually(() => d.daemon.status().activity === "idle", "the turn to end");
    const fromAgent = olga.lines.map(parseRawLine).filter((p) => p.nick === "spark-acp" && p.command === "PRIVMSG" && p.params[0] === "#test");
    expect(fromAgent).toHaveLength(1);
  });

  it("an operator's abort cancels the running prompt (session/cancel)", async () => {
    const { d } = await daemon();
    const olga = await human("olga");
    olga.send("PRIVMSG #test :@spark-acp hang on");
    await eventually(() => d.daemon.status().activity === "working", "the hanging turn");
    olga.send("PRIVMSG #test :@spark-acp abort");
    await olga.waitFor(privmsg("#test", /^olga: aborted the current task/));
    await eventually(() => d.daemon.status().activity === "idle", "the cancelled turn to end");
  });

  it("restarts a crashed agent; when the new one needs a login: one alert naming the fix, no restart loop", async () => {
    const { d, dir, pids } = await daemon();
    const olga = await human("olga");
    olga.send("PRIVMSG #test :@spark-acp crash now");
    await olga.waitFor(privmsg("#alerts", /^\[ERROR\] spark-acp crashed: process exited with code 3$/));
    await eventually(() => pids().size === 2 && d.daemon.status().running, "a new agent process");
    // The restarted agent answers.
    olga.send("PRIVMSG #test :@spark-acp still there?");
    await olga.waitFor(privmsg("#test", /^I heard: .*still there\?$/));

    writeFileSync(join(dir, "auth"), "");
    olga.send("PRIVMSG #test :@spark-acp crash again");
    await olga.waitFor(privmsg("#alerts", /^\[ERROR\] spark-acp cannot run its agent: .*authentication/i));
    await eventually(() => d.daemon.status().circuit_open, "the circuit to open");
    const before = pids().size;
    olga.send("PRIVMSG #test :@spark-acp hello?");
    await eventually(() => d.daemon.status().queued_prompts === 1, "the mention to be kept");
    await new Promise((r) => setTimeout(r, 1000)); // a restart loop would start processes now
    expect(pids().size).toBe(before);
    const authAlerts = olga.lines.filter(privmsg("#alerts", /cannot run its agent/));
    expect(authAlerts).toHaveLength(1);
  });
});
