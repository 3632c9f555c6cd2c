/**
 * Lifecycle scripts end to end: real shell scripts in the agent's directory, a real daemon (the
 * echo backend's real agent process), the embedded IRC server and a human on it. The echo agent
 * repeats its whole prompt, so the context lines before_turn added come back on IRC.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer } from "@culture/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../src/logger.js";
import { connectRawClient, parseRawLine, type RawIrcClient } from "../src/testing/irc-servers.js";
import { createTestDaemon, eventually, type TestDaemon } from "./helpers/daemon-harness.js";

function script(path: string, body: string, mode = 0o755): void {
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, mode);
}

/** The CULTURE_* variables of an env dump written by a script. */
function envFile(path: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of readFileSync(path, "utf8").split("\0")) {
    const i = line.indexOf("=");
    if (line.startsWith("CULTURE_") && i > 0) out[line.slice(0, i)] = line.slice(i + 1);
  }
  return out;
}

describe("lifecycle scripts", () => {
  let server: { port: number; close(): Promise<void> };
  let d: TestDaemon;
  let alice: RawIrcClient;
  let home: string;
  const logs: string[] = [];

  beforeAll(async () => {
    server = await startServer({ host: "127.0.0.1", port: 0, stateDir: null });
    home = mkdtempSync(join(tmpdir(), "culture-scripts-"));
    const before = join(home, "before.d");
    mkdirSync(before);
    script(join(before, "20-tickets.sh"), 'echo "open tickets: 3"; echo "source: $CULTURE_PROMPT_SOURCE turn $CULTURE_TURN"');
    script(join(before, "10-first.sh"), "echo first");
    script(join(before, "30-fail.sh"), "echo boom >&2; exit 3");
    writeFileSync(join(before, "README"), "not a script (not executable): skipped\n");
    script(join(home, "slow.sh"), "sleep 30");
    script(join(home, "after.sh"), 'env -0 > "after-$CULTURE_TURN.env"');
    script(join(home, "stop.sh"), "env -0 > stop.env");
    const created = await createTestDaemon({
      port: server.port,
      home,
      agent: { scripts: { before_turn: ["before.d", "./slow.sh", "missing.sh"], after_turn: ["after.sh"], before_stop: ["stop.sh"], timeout_seconds: 1 } },
      logger: createLogger({ level: "info", write: (l) => logs.push(l) }),
    });
    await created.start();
    d = created;
    alice = await connectRawClient(server.port, "alice");
    await alice.join("#test");
  });
  afterAll(async () => {
    await alice?.close();
    await d?.daemon.stop();
    await server?.close();
    rmSync(home, { recursive: true, force: true });
  });

  it("before_turn stdout becomes context lines of the prompt, in sorted order; a failing, slow or missing script is logged, never fatal", async () => {
    alice.send("PRIVMSG #test :@bot hello");
    await alice.waitFor(/PRIVMSG #test :source: mention turn 1$/);
    const said = alice.lines.map(parseRawLine).filter((p) => p.command === "PRIVMSG" && p.nick === "spark-bot" && p.params[0] === "#test").map((p) => p.params[1]);
    expect(said).toEqual(["I heard: [IRC @mention in #test] <alice> @bot hello", "[context from before_turn scripts]", "first", "open tickets: 3", "source: mention turn 1"]);
    const text = logs.join("\n");
    expect(text).toMatch(/WARN \[scripts\] before_turn script .*\/before\.d\/30-fail\.sh failed \(exit 3: boom\); carrying on/);
    expect(text).toMatch(/WARN \[scripts\] before_turn script .*\/slow\.sh failed \(timed out after 1s and was killed\); carrying on/);
    expect(text).toMatch(/WARN \[scripts\] before_turn script .*\/missing\.sh does not exist; skipped/);
    expect(text).not.toContain("README");
  });

  it("after_turn gets the turn's status (normal, abnormal), duration, last message and session id", async () => {
    await eventually(() => existsSync(join(home, "after-1.env")), "after_turn of turn 1");
    const first = envFile(join(home, "after-1.env"));
    expect(first).toMatchObject({
      CULTURE_NICK: "spark-bot",
      CULTURE_HOOK: "after_turn",
      CULTURE_TURN: "1",
      CULTURE_PROMPT_SOURCE: "mention",
      CULTURE_TURN_STATUS: "normal",
      CULTURE_LAST_MESSAGE: expect.stringMatching(/^I heard: \[IRC @mention in #test\] <alice> @bot hello\n\n\[context from before_turn scripts\]\nfirst\n/),
      CULTURE_SESSION_ID: (d.daemon.status().session_id as string | null) ?? "",
    });
    expect(Number(first.CULTURE_TURN_DURATION)).toBeGreaterThanOrEqual(0);
    expect(first.CULTURE_TURN_ERROR).toBeUndefined();
    alice.send("PRIVMSG #test :@bot crash");
    await eventually(() => existsSync(join(home, "after-2.env")), "after_turn of turn 2");
    const second = envFile(join(home, "after-2.env"));
    expect(second).toMatchObject({ CULTURE_TURN: "2", CULTURE_TURN_STATUS: "abnormal", CULTURE_TURN_ERROR: expect.stringMatching(/./) });
  });

  it("before_stop runs when the daemon stops, with the last message", async () => {
    await eventually(() => d.daemon.status().running === true, "the agent to be restarted after the crash");
    await d.daemon.stop();
    const stop = envFile(join(home, "stop.env"));
    expect(stop).toMatchObject({ CULTURE_HOOK: "before_stop", CULTURE_NICK: "spark-bot" });
    expect(stop.CULTURE_LAST_MESSAGE).toMatch(/^I heard: \[IRC @mention in #test\] <alice> @bot hello/);
  });
});
