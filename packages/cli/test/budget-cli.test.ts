/**
 * `culture budget` and budgets in `culture status`, with a real detached daemon (`culture
 * start`), the echo backend's real agent reporting usage, and the embedded IRC server: the
 * running totals survive a kill -9 of the daemon (rebuilt from the usage journal, and the
 * thresholds already alerted are not alerted again); a cap reached shows as `over-budget`;
 * the owner raises and resets from the shell; a bad `budget:` is refused naming the field.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { isProcessAlive } from "@culture/core";
import { connectRawClient, type RawIrcClient } from "@culture/core/testing";
import { startServer, type IrcServer } from "@culture/server";
import { ECHO_BACKEND, eventually, makeFleet, startedPid, type Fleet } from "./fleet-harness.js";

let server: IrcServer;
const fleets: Fleet[] = [];
const clients: RawIrcClient[] = [];

beforeAll(async () => {
  server = await startServer({ port: 0, stateDir: null, flood: false });
});
afterAll(async () => {
  await server?.close();
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  for (const f of fleets.splice(0)) await f.cleanup();
});

async function human(nick: string, channel: string): Promise<RawIrcClient> {
  const c = await connectRawClient(server.port, nick);
  clients.push(c);
  await c.join(channel);
  return c;
}

interface BudgetJson {
  time_zone: string;
  over_budget: { cap: string } | null;
  caps: Array<{ id: string; usd: number; usd_limit: number; tokens: number; percent: number }>;
}

describe("culture budget", () => {
  it("keeps the counts across kill -9, shows over-budget in status, raises and resets from the shell", async () => {
    const f = makeFleet(server.port, []);
    fleets.push(f);
    const agent = { nick: "spark-a", agent: ECHO_BACKEND, directory: f.home, channels: ["#test"], budget: { usd: 1, per: "day" } };
    f.writeConfig([agent], { budget: { time_zone: "UTC" } });
    const ops = await human("ops", "#alerts");
    const alice = await human("alice", "#test");
    const pid = startedPid((await f.culture(["start", "spark-a"])).stdout, "spark-a");
    alice.send("PRIVMSG #test :@spark-a spend 1200 300 0.3");
    await alice.waitFor(/PRIVMSG #test :I heard: spent 1500 tokens/, 20_000);
    alice.send("PRIVMSG #test :@spark-a spend 1200 300 0.3");
    await ops.waitFor(/PRIVMSG #alerts :\[BUDGET\] spark-a: 50% of spark-a's budget used \(\$0\.60 of \$1\.00 per day/, 20_000);
    const show = await f.culture(["budget", "show", "spark-a"]);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/^spark-a is within budget \(time zone UTC\)\nagent spark-a day: 60% — \$0\.60 of \$1\.00 per day; resets \d{4}-\d\d-\d\d 00:00 UTC\n$/);
    console.log(`$ culture budget show spark-a\n${show.stdout}`);

    // kill -9: the next daemon rebuilds the totals from the usage journal and does not alert 50 % again.
    process.kill(pid, "SIGKILL");
    await eventually(() => !isProcessAlive(pid), "the daemon to be gone");
    expect((await f.culture(["start", "spark-a"])).code).toBe(0);
    const json = JSON.parse((await f.culture(["budget", "show", "spark-a", "--json"])).stdout) as { nick: string; budget: BudgetJson };
    expect(json.budget.caps).toEqual([expect.objectContaining({ id: "agent spark-a day", usd: 0.6, usd_limit: 1, tokens: 3000, percent: 60 })]);
    alice.send("PRIVMSG #test :@spark-a spend 1200 300 0.5");
    await ops.waitFor(/PRIVMSG #alerts :\[OVER BUDGET\] spark-a: spark-a's budget is used up \(\$1\.10 of \$1\.00 per day\)/, 20_000);
    expect(ops.lines.filter((l) => l.includes("50% of"))).toHaveLength(1);
    expect(ops.lines.filter((l) => l.includes("80% of"))).toHaveLength(0); // 60 % -> 110 %: one alert, the highest
    const table = await f.culture(["status"]);
    expect(table.stdout).toMatch(/^spark-a\s+over-budget\s/m);
    const row = (JSON.parse((await f.culture(["status", "spark-a", "--json"])).stdout) as Array<{ state: string; budget: BudgetJson; description: string }>)[0]!;
    expect(row.state).toBe("over-budget");
    expect(row.budget.over_budget?.cap).toBe("agent spark-a day");
    expect(row.description).toMatch(/^over budget: spark-a's budget is used up \(\$1\.10 of \$1\.00 per day\); resumes .* UTC; 0 prompt\(s\) waiting$/);
    console.log(`$ culture status\n${table.stdout}`);

    // The owner raises it from the shell; the state clears; then resets it.
    const bad = await f.culture(["budget", "raise", "spark-a", "5"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('spark-a: cannot read the amount "5": say dollars ($5, 5usd) or tokens (200k, 200000 tokens)');
    const raise = await f.culture(["budget", "raise", "spark-a", "$1"]);
    expect(raise.code).toBe(0);
    expect(raise.stdout).toMatch(/^raised agent spark-a day by \$1 for this period \(by local\)\nspark-a is within budget \(time zone UTC\)\nagent spark-a day: 55% — \$1\.10 of \$2\.00 per day; resets .* UTC\n$/);
    console.log(`$ culture budget raise spark-a '$1'\n${raise.stdout}`);
    const reset = await f.culture(["budget", "reset", "spark-a"]);
    expect(reset.stdout).toMatch(/^reset agent spark-a day for this period \(by local\)\nspark-a is within budget \(time zone UTC\)\nagent spark-a day: 0% — \$0\.00 of \$2\.00 per day; resets .* UTC\n$/);
    console.log(`$ culture budget reset spark-a\n${reset.stdout}`);
    expect((JSON.parse((await f.culture(["status", "spark-a", "--json"])).stdout) as Array<{ state: string }>)[0]!.state).toBe("running");
  }, 120_000);

  it("refuses a bad budget: naming the field", async () => {
    const f = makeFleet(server.port, []);
    fleets.push(f);
    f.writeConfig([{ nick: "spark-a", agent: ECHO_BACKEND, directory: f.home, budget: { usd: 5, per: "fortnight" } }], { budget: { time_zone: "Moon/Base" } });
    const run = await f.culture(["start", "spark-a"]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/budget\.time_zone: an IANA time zone like "Europe\/Berlin" or "UTC"/);
    expect(run.stderr).toMatch(/agents\[0\]\.budget\.per: a period: "day", "week" or "month"/);
    console.log(`$ culture start spark-a\n${run.stderr}`);
  }, 60_000);
});
