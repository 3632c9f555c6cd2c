/**
 * The real OpenCode (`opencode acp`) retries a 429 and a 503 by itself, without end and
 * without a word over ACP; started with `--print-logs --log-level ERROR` it logs each failed
 * model call, and culture announces those as retries: the asker hears once that the turn is
 * delayed and gets one answer, and culture sends the prompt once (`api_retries: auto` adds no
 * retries of its own on top of OpenCode's). A refused key is no delay.
 */
import { agentCli, eventually, ircReplyScript, parseIrcPrompt } from "@culture/core/testing";
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from "vitest";
import { idle, startRealAcpRig, type RealAcpRig } from "./real-acp-rig.js";

describe("OpenCode's own retries reach the asker as one delay notice (real OpenCode)", () => {
  let rig: RealAcpRig;
  /** What the API answers the next agent requests with, one each. */
  const failures: Array<{ fail: number; message: string }> = [];
  const base = ircReplyScript();

  beforeAll(async () => {
    rig = await startRealAcpRig({
      agent: "opencode",
      script: (req) => (req.tools.length > 0 && parseIrcPrompt(req.lastUserText) ? (failures.shift() ?? base(req)) : base(req)),
      entry: { acp_command: [agentCli("opencode").bin!, "acp", "--print-logs", "--log-level", "ERROR"], receipts: "notice", turn_timeout_seconds: 60 },
      // The first retry tells the asker at once (the default waits for 30 s of retries).
      timings: { retryNoticeMs: 0 },
    });
  }, 120_000);
  afterAll(async () => {
    await rig?.close();
  }, 60_000);

  const statuses = (from: number) => rig.api.requests.slice(from).filter((r) => r.model && r.model.tools.length > 0 && parseIrcPrompt(r.model.lastUserText)).map((r) => r.status);

  it("a 429 then a 503: OpenCode retries, the asker hears once that it is delayed, and gets one answer", async () => {
    onTestFailed(() => console.error(rig.olga.lines.slice(-20).join("\n")));
    failures.push({ fail: 429, message: "Rate limit reached for requests" }, { fail: 503, message: "Service Unavailable" });
    const from = rig.api.requests.length;
    const mark = rig.olga.lines.length;
    rig.olga.send(`PRIVMSG #test :@${rig.nick} busy?`);
    await rig.said("#test", /^echo: @spark-opencode busy\? \(prompt \d+\)$/, 90_000);
    await idle(rig);
    expect(statuses(from)).toEqual([429, 503, 200]);
    const delayed = rig.olga.since(mark).filter((l) => / delayed: /.test(l));
    expect(delayed).toEqual([expect.stringMatching(/ NOTICE olga :\[#test\] delayed: the model API is rate limiting \(Rate limit reached for requests\); I keep trying: "@spark-opencode busy\?"$/)]);
    expect(rig.lines("#test").filter((l) => l.startsWith("echo: @spark-opencode busy?"))).toHaveLength(1);
  }, 120_000);

  it("a refused key (401) is no delay: no notice, the asker reads why", async () => {
    failures.push({ fail: 401, message: "Incorrect API key provided: dummy." });
    const from = rig.api.requests.length;
    const mark = rig.olga.lines.length;
    rig.olga.send(`PRIVMSG #test :@${rig.nick} who am i`);
    await rig.said("#test", /^olga: sorry, "@spark-opencode who am i" failed: .*could not use its model: the model API refused its credentials/, 60_000);
    await eventually(() => rig.lines("#alerts").some((l) => /^\[ERROR\] spark-opencode cannot run its agent: .*Incorrect API key/.test(l)), "the alert");
    expect(statuses(from)).toEqual([401]);
    expect(rig.olga.since(mark).filter((l) => / delayed: /.test(l))).toEqual([]);
  }, 120_000);
});
