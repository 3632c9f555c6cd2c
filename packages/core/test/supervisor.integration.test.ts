/**
 * The supervisor inside a real daemon: a scripted command evaluator chooses the verdicts, the
 * whispers reach the agent through `culture channel`, the escalation reaches #alerts on a real
 * IRC server and a real local HTTP webhook, the agent is paused, and humans answer on IRC.
 */
import { createHmac } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startServer, type IrcServer } from "@culture/server";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { connectRawClient, parseRawLine, type RawIrcClient } from "../src/testing/irc-servers.js";
import { eventually, startTestDaemon, type TestDaemon } from "./helpers/daemon-harness.js";

const EVALUATOR = fileURLToPath(new URL("./fixtures/scripted-evaluator.mjs", import.meta.url));

interface Hook {
  body: string;
  headers: IncomingHttpHeaders;
}

describe("supervisor in the daemon", () => {
  let irc: IrcServer;
  let http: Server;
  let webhookUrl: string;
  const hooks: Hook[] = [];
  const cleanups: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    irc = await startServer({ host: "127.0.0.1", port: 0, stateDir: null });
    http = createServer((req, res) => {
      let body = "";
      req.on("data", (d) => (body += d));
      req.on("end", () => {
        hooks.push({ body, headers: req.headers });
        res.end("ok");
      });
    });
    await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
    const addr = http.address() as { port: number };
    webhookUrl = `http://127.0.0.1:${addr.port}/hook`;
  });
  afterAll(async () => {
    await irc?.close();
    await new Promise((r) => http?.close(r));
  });
  afterEach(async () => {
    hooks.length = 0;
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  });

  async function human(nick: string, channels = ["#test", "#alerts"]): Promise<RawIrcClient> {
    const c = await connectRawClient(irc.port, nick);
    cleanups.push(() => c.close());
    for (const ch of channels) await c.join(ch);
    return c;
  }

  function scripted(verdicts: string[]): string {
    const dir = mkdtempSync(join(tmpdir(), "culture-eval-"));
    writeFileSync(join(dir, "verdicts.txt"), verdicts.join("\n"));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    return dir;
  }

  async function daemon(config: Record<string, unknown>, agent: Record<string, unknown> = {}): Promise<TestDaemon> {
    const d = await startTestDaemon({ port: irc.port, config, agent });
    cleanups.push(() => d.stop());
    return d;
  }

  const privmsg = (from: string, target: string, text: RegExp) => (line: string) => {
    const p = parseRawLine(line);
    return p.command === "PRIVMSG" && p.nick === from && p.params[0] === target && text.test(p.params[1] ?? "");
  };

  it("whispers, whispers harder, then escalates to #alerts and the webhook and pauses; an operator resumes", async () => {
    const dir = scripted(["CORRECTION Stop rebuilding; read the error.", "CORRECTION Still rebuilding.", "CORRECTION Third time now."]);
    const d = await daemon({
      supervisor: { agent: "command", command: [process.execPath, EVALUATOR, dir], eval_interval: 1, escalation_threshold: 3 },
      webhooks: { url: webhookUrl, secret: "s3cret" },
      operators: ["erin"],
      operators_by_nick: true, // the test server has no accounts
    });
    const erin = await human("erin");

    erin.send("PRIVMSG #test :@spark-bot build the thing");
    await eventually(() => (d.daemon.status().supervisor?.ladder_step ?? 0) >= 1, "the first whisper");
    // The whisper waits for the agent's next `culture channel` call, and is printed on stderr.
    const first = await d.culture(["channel", "read", "#test"]);
    expect(first.exitCode).toBe(0);
    expect(first.stderr).toContain("[SUPERVISOR/CORRECTION] Stop rebuilding; read the error.");

    erin.send("PRIVMSG #test :@spark-bot build it again");
    await eventually(() => (d.daemon.status().supervisor?.ladder_step ?? 0) >= 2, "the second whisper");
    const second = await d.culture(["channel", "read", "#test"]);
    expect(second.stderr).toMatch(/\[SUPERVISOR\/CORRECTION\] .*Still rebuilding\./);
    expect(second.stderr).not.toContain("Stop rebuilding"); // delivered once

    erin.send("PRIVMSG #test :@spark-bot and again");
    const escalation = await erin.waitFor(privmsg("spark-bot", "#alerts", /^\[ESCALATION\]/));
    expect(parseRawLine(escalation).params[1]).toMatch(
      /^\[ESCALATION\] Agent spark-bot appears stuck on task ".*and again"\. .*Third time now.*Awaiting human guidance\. Reply @spark-bot resume\/abort$/,
    );
    await eventually(() => d.daemon.status().paused, "the agent to be paused");
    expect(d.daemon.status().supervisor).toMatchObject({ last_verdict: "CORRECTION", evaluations: 3 });

    // The webhook got the agent_spiraling event, signed.
    const hook = (await eventually(() => hooks.find((h) => JSON.parse(h.body).event === "agent_spiraling"), "the webhook"))!;
    const body = JSON.parse(hook.body);
    expect(body).toMatchObject({ event: "agent_spiraling", nick: "spark-bot", severity: "warning" });
    expect(body.content).toMatch(/^\[SPIRALING\] spark-bot stuck on task /);
    expect(hook.headers["x-culture-signature"]).toBe(`sha256=${createHmac("sha256", "s3cret").update(hook.body).digest("hex")}`);

    // While paused, mentions are kept; a stranger cannot resume; the operator can.
    erin.send("PRIVMSG #test :@spark-bot what now?");
    const mallory = await human("mallory", ["#test"]);
    mallory.send("PRIVMSG #test :@spark-bot resume");
    await mallory.waitFor((line) => {
      const p = parseRawLine(line);
      return p.command === "NOTICE" && p.nick === "spark-bot" && p.params[0] === "mallory" && p.params[1] === "only operators (by IRC account) can resume spark-bot.";
    });
    expect(d.daemon.status().paused).toBe(true);
    erin.send("PRIVMSG #test :@spark-bot resume");
    await erin.waitFor(privmsg("spark-bot", "#test", /^erin: resumed\.$/));
    await erin.waitFor(privmsg("spark-bot", "#test", /^I heard: .*what now\?$/));
    expect(d.daemon.status()).toMatchObject({ paused: false });
    expect(d.daemon.status().supervisor?.ladder_step).toBe(0);
  });

  it("an operator's abort interrupts the current task and drops what was queued", async () => {
    const d = await daemon({ operators: ["erin"], operators_by_nick: true }); // no accounts here
    const erin = await human("erin", ["#test"]);
    erin.send("PRIVMSG #test :@spark-bot hang");
    await eventually(() => d.daemon.status().activity === "working", "the hanging turn");
    erin.send("PRIVMSG #test :@spark-bot queued one");
    await eventually(() => d.daemon.status().queued_prompts === 1, "the queued mention");
    erin.send("PRIVMSG #test :@spark-bot abort");
    await erin.waitFor(privmsg("spark-bot", "#test", /^erin: aborted the current task and dropped 1 queued prompt\(s\)\.$/));
    await eventually(() => d.daemon.status().activity === "idle", "the turn to end");
    erin.send("PRIVMSG #test :@spark-bot fresh start");
    const next = await erin.waitFor(privmsg("spark-bot", "#test", /^I heard: /));
    expect(parseRawLine(next).params[1]).toBe("I heard: [IRC @mention in #test] <erin> @spark-bot fresh start");
  });

  it("with no evaluator at all, the same tool call repeated in one task is caught by the local SPIRALING signal", async () => {
    const d = await daemon({}, {});
    const erin = await human("erin", ["#test"]);
    // The same call asked for in four tasks is not a spiral: each task needed it once.
    for (let i = 0; i < 4; i++) {
      erin.send("PRIVMSG #test :@spark-bot tool make build");
      await erin.waitFor(privmsg("spark-bot", "#test", /^used a tool$/));
    }
    await eventually(() => (d.daemon.status().supervisor?.evaluations ?? 0) >= 2, "evaluations of the four tasks");
    expect(d.daemon.status().supervisor?.ladder_step ?? 0).toBe(0);
    // Retried four times within one task, it is.
    erin.send("PRIVMSG #test :@spark-bot retry 4 make build");
    await erin.waitFor(privmsg("spark-bot", "#test", /^used 4 tools$/));
    await eventually(() => (d.daemon.status().supervisor?.ladder_step ?? 0) >= 1, "a whisper from the local signal");
    expect(d.daemon.status().supervisor?.evaluator ?? null).toBeNull();
    const read = await d.culture(["channel", "read", "#test"]);
    expect(read.stderr).toMatch(/\[SUPERVISOR\/CORRECTION\] .*make build/);
  });
});
