/**
 * Join refusals tell the truth, on a real InspIRCd: a channel operator set #locked +i before
 * the agent joined (the embedded server no longer lets a stranger do that to an agent channel,
 * a real network's ops still can). A real detached daemon refused with 473 shows it in
 * `culture status` (table and `--json` `channels_refused`), posts it to #alerts, makes
 * `culture doctor` fail naming the channel and the reason, and `culture start` says so per
 * agent and exits 1. Once the mode is lifted, a restart joins and all is clear again.
 * Build first (`npm run build`).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectRawClient, parseRawLine, startIrcServer, type RawIrcClient, type RunningIrcServer } from "@culture/core/testing";
import { ECHO_BACKEND, makeFleet, startedPid, type Fleet } from "./fleet-harness.js";

let ircd: RunningIrcServer;
let f: Fleet;
let chanop: RawIrcClient;
let watcher: RawIrcClient;

beforeAll(async () => {
  ircd = await startIrcServer("inspircd");
  chanop = await connectRawClient(ircd.port, "chanop");
  await chanop.join("#locked");
  chanop.send("MODE #locked +i");
  await chanop.waitFor((_l, p) => p.command === "MODE" && p.params[0] === "#locked" && p.params[1] === "+i");
  watcher = await connectRawClient(ircd.port, "watcher");
  await watcher.join("#alerts");
  f = makeFleet(ircd.port, []);
  f.writeConfig([{ nick: "spark-ref", agent: ECHO_BACKEND, directory: f.home, channels: ["#test", "#locked"] }]);
}, 60_000);
afterAll(async () => {
  await chanop?.close();
  await watcher?.close();
  await f?.culture(["stop", "--all"]);
  await f?.cleanup();
  await ircd?.stop();
});

describe("an agent refused a channel", { timeout: 90_000 }, () => {
  it("culture start says so and exits 1; status, #alerts and doctor name the channel and the reason", async () => {
    const start = await f.culture(["start", "--all"]);
    startedPid(start.stdout, "spark-ref");
    expect(start.code).toBe(1);
    expect(start.stderr).toMatch(/^spark-ref: the IRC server refused to let it join #locked \(IRC 473: .*invite/im);
    expect(start.stderr).toContain("nobody in #locked can reach it");

    const rows = JSON.parse((await f.culture(["status", "--json"])).stdout) as Array<Record<string, unknown>>;
    expect(rows[0]).toMatchObject({ nick: "spark-ref", state: "running", connected: true, channels_refused: [{ channel: "#locked", code: "473" }] });
    expect(rows[0]!.channels).not.toContain("#locked");
    expect(String(rows[0]!.description)).toMatch(/cannot join #locked \(IRC 473: /);
    const table = await f.culture(["status"]);
    expect(table.stdout).toMatch(/^spark-ref\s+running\s+connected\s.*cannot join #locked/m);

    const alert = await watcher.waitFor((line) => {
      const p = parseRawLine(line);
      return p.command === "PRIVMSG" && p.nick === "spark-ref" && p.params[0] === "#alerts" && (p.params[1] ?? "").startsWith("[JOIN REFUSED] spark-ref cannot join #locked (IRC 473");
    }, 20_000);
    expect(alert).toContain("nobody there can reach it");

    const doctor = await f.culture(["doctor", "--timeout", "20"]);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(/^FAIL {2}spark-ref: channels: the IRC server refused to let spark-ref join #locked \(IRC 473: /m);
    expect(doctor.stdout).toContain("fix: ask an operator of #locked to invite spark-ref or lift the mode");
  });

  it("after the mode is lifted, a restart joins and start, status and doctor are clear", async () => {
    chanop.send("MODE #locked -i");
    await chanop.waitFor((_l, p) => p.command === "MODE" && p.params[0] === "#locked" && p.params[1] === "-i");
    expect((await f.culture(["stop", "spark-ref"])).code).toBe(0);
    const start = await f.culture(["start", "spark-ref"]);
    expect(start.stderr).toBe("");
    expect(start.code).toBe(0);
    const rows = JSON.parse((await f.culture(["status", "--json"])).stdout) as Array<Record<string, unknown>>;
    expect(rows[0]).toMatchObject({ channels_refused: [], channels: expect.arrayContaining(["#locked", "#test"]) });
    const doctor = await f.culture(["doctor", "--timeout", "20"]);
    expect(doctor.stdout).toMatch(/^ok {4}spark-ref: channels: in #test, #locked$/m);
  });
});
