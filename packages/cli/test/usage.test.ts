/**
 * `culture usage` and the status TODAY cell: the report's pure parts, and the built CLI reading
 * real usage journals (two agents, one removed from every config) under a temp culture home.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { costCell, parseBy, parseWhen, todayCell } from "../src/usage-report.js";

const BIN = fileURLToPath(new URL("../bin/culture.cjs", import.meta.url));
const DAY = 86_400_000;
const NOW = Date.parse("2026-11-27T10:30:00Z");

describe("usage report parts", () => {
  it("reads --since/--until forms and refuses others with the forms it takes", () => {
    expect(parseWhen("today", NOW, "--since")).toBe(Date.parse("2026-11-27T00:00:00Z"));
    expect(parseWhen("yesterday", NOW, "--since")).toBe(Date.parse("2026-11-26T00:00:00Z"));
    expect(parseWhen("7d", NOW, "--since")).toBe(NOW - 7 * DAY);
    expect(parseWhen("12h", NOW, "--since")).toBe(NOW - 12 * 3_600_000);
    expect(parseWhen("2026-11-01", NOW, "--since")).toBe(Date.parse("2026-11-01T00:00:00Z"));
    expect(parseWhen("2026-11-01T08:00:00+02:00", NOW, "--until")).toBe(Date.parse("2026-11-01T06:00:00Z"));
    for (const bad of ["lastweek", "7 days", "2026-13-45", "-1d", ""]) expect(() => parseWhen(bad, NOW, "--since")).toThrow(/--since .*expected today, yesterday/);
    expect(parseBy("agent,model")).toEqual(["agent", "model"]);
    for (const bad of ["", "agents", "agent,,cost"]) expect(() => parseBy(bad)).toThrow(/group by one or more of agent, channel, account, nick, model, day/);
  });

  it("never shows an unknown cost as a figure", () => {
    expect(costCell({ turns: 2, costUsd: 0, costUnknownTurns: 2 })).toBe("unknown");
    expect(costCell({ turns: 3, costUsd: 0.5, costUnknownTurns: 1 })).toBe("$0.5000 + 1 unknown");
    expect(costCell({ turns: 3, costUsd: 0, costUnknownTurns: 0 })).toBe("$0.0000");
    expect(todayCell({ today: { turns: 2, input_tokens: 1500, output_tokens: 100, cost_usd: 0, cost_unknown_turns: 2 } })).toBe("1.6k tok $?");
    expect(todayCell({ today: { turns: 2, input_tokens: 2_000_000, output_tokens: 0, cost_usd: 1.25, cost_unknown_turns: 1 } })).toBe("2.0M tok $1.2500 + 1?");
    expect(todayCell(undefined)).toBe("-");
  });
});

describe("culture usage (the built CLI)", () => {
  const home = mkdtempSync(join(tmpdir(), "culture-usage-"));
  afterAll(() => rmSync(home, { recursive: true, force: true }));
  const rec = (agent: string, at: number, over: Record<string, unknown>) => ({
    v: 1, type: "turn", at, agent, turn: `${agent}-${at}`, kind: "mention", channel: "#dev", nick: "alice", account: "alice", model: "m1",
    tokens: { input: 1000, output: 100, cacheRead: 400, cacheWrite: 0, reasoning: 10 }, costUsd: 0.01, costSource: "agent", reported: true, failed: false, ...over,
  });
  const now = Date.now();
  const journal = (nick: string, lines: string[]) => {
    mkdirSync(join(home, "state", `agent-${nick}`), { recursive: true });
    writeFileSync(join(home, "state", `agent-${nick}`, "usage.jsonl"), lines.join(""), { mode: 0o600 });
  };
  journal("spark-a", [
    JSON.stringify(rec("spark-a", now - 1000, {})) + "\n",
    JSON.stringify(rec("spark-a", now - 500, { channel: null, kind: "dm", nick: "bob", account: null, costUsd: null, costSource: null })) + "\n",
    JSON.stringify(rec("spark-a", now - 3 * DAY, { model: "m2" })) + "\n",
    '{"v":1,"type":"turn","at":1', // torn by a kill -9
  ]);
  journal("spark-gone", [JSON.stringify(rec("spark-gone", now - 100, { model: "m2", costUsd: 0.02 })) + "\n"]);
  const run = async (...args: string[]) => {
    const r = await execa(process.execPath, [BIN, "usage", ...args], { reject: false, env: { ...process.env, CULTURE_HOME: home, CULTURE_CONFIG: "" } });
    return { code: r.exitCode, stdout: r.stdout, stderr: r.stderr };
  };

  it("adds up today's turns of every agent with a journal, as a table and as JSON; a torn line is reported", async () => {
    const table = await run("--by", "agent");
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^AGENT\s+TURNS\s+INPUT\s+OUTPUT\s+CACHE-READ\s+CACHE-WRITE\s+REASONING\s+COST$/m);
    expect(table.stdout).toMatch(/^spark-a\s+2\s+2,000\s+200\s+800\s+0\s+20\s+\$0\.0100 \+ 1 unknown$/m);
    expect(table.stdout).toMatch(/^spark-gone\s+1\s+1,000\s+100\s+400\s+0\s+10\s+\$0\.0200$/m);
    expect(table.stdout).toMatch(/^total\s+3\s+3,000\s+300/m);
    expect(table.stderr).toMatch(/skipped line 4 of .*agent-spark-a\/usage\.jsonl \(torn\)/);
    const json = JSON.parse((await run("--since", "7d", "--by", "model", "--json")).stdout);
    expect(json.groups).toEqual([
      expect.objectContaining({ model: "m1", turns: 2, input_tokens: 2000, cost_usd: 0.01, cost_unknown_turns: 1 }),
      expect.objectContaining({ model: "m2", turns: 2, input_tokens: 2000, cost_usd: 0.03, cost_unknown_turns: 0 }),
    ]);
    expect(json.total).toMatchObject({ turns: 4, output_tokens: 400, reasoning_tokens: 40 });
    expect(json.skipped_lines).toEqual([expect.objectContaining({ line: 4, reason: "torn" })]);
    const dm = JSON.parse((await run("--agent", "spark-a", "--by", "channel,nick", "--json")).stdout);
    expect(dm.groups.map((g: Record<string, unknown>) => [g.channel, g.nick, g.turns])).toEqual([["#dev", "alice", 1], [null, "bob", 1]]);
  });

  it("a bad --since or --by is a usage error (exit 2) saying what it takes", async () => {
    const r = await run("--since", "lastweek");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--since "lastweek": expected today, yesterday');
    expect((await run("--by", "cost")).code).toBe(2);
    expect((await run("--since", "2020-01-01", "--until", "2020-01-02")).stdout).toMatch(/^No usage since 2020-01-01T00:00:00Z until 2020-01-02T00:00:00Z\.$/m);
  });
});
