/**
 * culture's own retries of an ACP turn, with the real Gemini CLI (`gemini --acp`) told not to
 * retry by itself (`general.maxAttempts: 1` in ~/.gemini/settings.json) and `api_retries: 2`:
 * a 429 and a 503 from the scripted model API are retried by culture (the asker hears once that
 * the turn is delayed, and gets one answer); a refused key is not retried; a 503 that outlasts
 * the retries fails the turn with the API's words. With Gemini CLI's own retries (the default,
 * `api_retries: auto`) culture adds none: real-agent-cases.ts.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { eventually, ircReplyScript, parseIrcPrompt } from "@culture/core/testing";
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from "vitest";
import { idle, startRealAcpRig, type RealAcpRig } from "./real-acp-rig.js";

describe("culture retries a transient model failure of the real Gemini CLI (maxAttempts: 1)", () => {
  let rig: RealAcpRig;
  /** What the API answers the next agent requests with, one each. */
  const failures: Array<{ fail: number; message: string }> = [];
  const base = ircReplyScript();

  beforeAll(async () => {
    rig = await startRealAcpRig({
      agent: "gemini",
      script: (req) => (req.tools.length > 0 && parseIrcPrompt(req.lastUserText) ? (failures.shift() ?? base(req)) : base(req)),
      entry: { api_retries: 2, api_retry_delay_seconds: 0.5, receipts: "notice", turn_timeout_seconds: 60 },
      // culture's first retry tells the asker at once (the default waits 30 s of retries).
      timings: { retryNoticeMs: 0 },
      beforeStart: ({ home }) => {
        const file = join(home, ".gemini", "settings.json");
        const settings = JSON.parse(readFileSync(file, "utf8")) as { general: Record<string, unknown> };
        settings.general.maxAttempts = 1;
        writeFileSync(file, JSON.stringify(settings, null, 2));
      },
    });
  }, 120_000);
  afterAll(async () => {
    await rig?.close();
  }, 60_000);

  const statuses = (from: number) => rig.api.requests.slice(from).filter((r) => r.model && parseIrcPrompt(r.model.lastUserText)).map((r) => r.status);

  it("a 429 then a 503: culture tries twice more, the asker hears once that it is delayed, and gets one answer", async () => {
    onTestFailed(() => console.error(rig.olga.lines.slice(-20).join("\n")));
    failures.push({ fail: 429, message: "Resource has been exhausted (e.g. check quota)." }, { fail: 503, message: "The model is overloaded. Please try again later." });
    const from = rig.api.requests.length;
    const mark = rig.olga.lines.length;
    rig.olga.send(`PRIVMSG #test :@${rig.nick} busy?`);
    await rig.said("#test", /^echo: @spark-gemini busy\? \(prompt \d+\)$/, 90_000);
    await idle(rig);
    expect(statuses(from)).toEqual([429, 503, 200]);
    const delayed = rig.olga.since(mark).filter((l) => / delayed: /.test(l));
    expect(delayed).toEqual([expect.stringMatching(/ NOTICE olga :\[#test\] delayed: the model API is rate limiting \(429 .*Resource has been exhausted.*\); next try in 1s; I keep trying: "@spark-gemini busy\?"$/)]);
    expect(rig.lines("#test").filter((l) => l.startsWith("echo: @spark-gemini busy?"))).toHaveLength(1);
  }, 120_000);

  it("a 503 that outlasts culture's two retries fails the turn: the asker reads the API's words once", async () => {
    failures.push(...[1, 2, 3].map(() => ({ fail: 503, message: "The model is overloaded. Please try again later." })));
    const from = rig.api.requests.length;
    const mark = rig.olga.lines.length;
    rig.olga.send(`PRIVMSG #test :@${rig.nick} still busy?`);
    const failed = await rig.said("#test", /^olga: sorry, "@spark-gemini still busy\?" failed: /, 90_000);
    await idle(rig);
    expect(failed).toMatch(/overloaded/);
    expect(statuses(from)).toEqual([503, 503, 503]);
    expect(rig.olga.since(mark).filter((l) => / delayed: /.test(l))).toHaveLength(1);
  }, 120_000);

  it("a refused key (401) is not retried: one request, and the asker reads why", async () => {
    failures.push({ fail: 401, message: "API key not valid. Please pass a valid API key." });
    const from = rig.api.requests.length;
    const mark = rig.olga.lines.length;
    rig.olga.send(`PRIVMSG #test :@${rig.nick} who am i`);
    // The asker is told in the channel it asked in; the agent is paused until an operator resumes it.
    await rig.said("#test", /^olga: sorry, "@spark-gemini who am i" failed: .*the model API refused its credentials \(HTTP 401: API key not valid\. .*an operator must fix that \(see #alerts\)/, 30_000);
    await eventually(() => rig.lines("#alerts").some((l) => /^\[ERROR\] spark-gemini cannot run its agent: .*API key not valid/.test(l)), "the alert");
    expect(statuses(from)).toEqual([401]);
    expect(rig.olga.since(mark).filter((l) => / delayed: /.test(l))).toEqual([]);
  }, 120_000);
});
