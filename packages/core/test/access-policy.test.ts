// The access decisions as a table, the account tracker's trust order, and the config keys
// (allow, operators_by_nick) with their validation.
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../src/config/load-config.js";
import { AccessPolicy } from "../src/daemon/access-policy.js";
import { AccountTracker } from "../src/irc/account-tracker.js";
import { createLogger } from "../src/logger.js";

const logger = createLogger({ level: "silent", scope: "t" });
const policy = (config: Record<string, unknown>, agentAllow: unknown = null, now = () => 0) =>
  new AccessPolicy({ operators: [], operators_by_nick: false, allow: "auto", ...config } as never, { allow: agentAllow as never }, { logger, now });
const alice = { nick: "alice", account: "alice" };
const anon = { nick: "alice", account: null };

describe("AccessPolicy", () => {
  it("operators are accounts; nicks only with operators_by_nick; none means nobody", () => {
    expect(policy({}).mayCommand(alice)).toBe(false);
    expect(policy({ operators: ["Alice"] }).mayCommand(alice)).toBe(true);
    expect(policy({ operators: ["alice"] }).mayCommand(anon)).toBe(false);
    expect(policy({ operators: ["alice"] }).mayCommand({ nick: "x", account: "bob" })).toBe(false);
    expect(policy({ operators: ["alice"], operators_by_nick: true }).mayCommand(anon)).toBe(true);
  });

  it.each([
    ["auto", true, alice, true],
    ["auto", true, anon, false],
    ["auto", false, anon, true],
    ["everyone", true, anon, true],
    ["accounts", false, anon, false],
    ["accounts", false, alice, true],
    [["bob"], true, alice, false],
    [["ALICE"], true, alice, true],
  ] as const)("allow %j (server has accounts: %s) for %j -> %s", (allow, hasAccounts, sender, expected) => {
    expect(policy({ allow }).mayPrompt(sender, hasAccounts)).toBe(expected);
  });

  it("the agent's allow wins over the top-level one; operators may always prompt", () => {
    expect(policy({ allow: "everyone" }, ["bob"]).mayPrompt(alice, true)).toBe(false);
    expect(policy({ allow: ["bob"], operators: ["alice"] }).mayPrompt(alice, true)).toBe(true);
  });

  it("tells a refused sender at most once an hour, and a few senders a minute in all", () => {
    let t = 0;
    const p = policy({ allow: ["bob"] }, null, () => t);
    expect(p.refusal(alice, "prompt", "spark-bot")).toMatch(/^spark-bot only takes prompts from certain accounts/);
    expect(p.refusal(alice, "prompt", "spark-bot")).toBeNull();
    expect(p.refusal(alice, "prompt", "spark-bot")).toBeNull();
    t = 3_600_000;
    // The next notice counts what was refused quietly in between: aggregated, never silent forever.
    expect(p.refusal(alice, "prompt", "spark-bot")).toMatch(/your message was not passed on \(nor 2 more of yours since the last notice\)\.$/);
    t = 7_200_000;
    expect(p.refusal(alice, "prompt", "spark-bot")).toMatch(/your message was not passed on\.$/);
    const many = Array.from({ length: 10 }, (_, i) => p.refusal({ nick: `n${i}`, account: null }, "prompt", "spark-bot"));
    expect(many.filter((x) => x !== null)).toHaveLength(5); // 6 a minute, alice's took one
  });
});

describe("AccountTracker", () => {
  const fold = (s: string) => s.toLowerCase();
  it("trusts the account tag when the server tags messages: no tag means not logged in", () => {
    const t = new AccountTracker(fold);
    t.joined("alice", "alice");
    expect(t.accountOf("alice", {}, true)).toBeNull();
    expect(t.accountOf("alice", { account: "alice" }, true)).toBe("alice");
    expect(t.accountOf("alice", {}, false)).toBe("alice");
  });

  it("follows ACCOUNT, nick changes, quits and WHOX", () => {
    const t = new AccountTracker(fold);
    t.joined("bob", "*");
    expect(t.accountOf("bob", {}, false)).toBeNull();
    t.accountChanged("bob", "bobby");
    t.renamed("bob", "robert");
    expect(t.accountOf("Robert", {}, false)).toBe("bobby");
    t.quit("robert");
    expect(t.accountOf("robert", {}, false)).toBeNull();
    t.whox("carol", "carol");
    t.whox("dave", "0");
    expect([t.accountOf("carol", {}, false), t.accountOf("dave", {}, false)]).toEqual(["carol", null]);
  });
});

describe("config: allow and operators_by_nick", () => {
  it("defaults to auto and no nick matching, and reads both levels", () => {
    const c = resolveConfig({ agents: [{ nick: "spark-a" }, { nick: "spark-b", allow: ["alice", "bob"] }] });
    expect(c.allow).toBe("auto");
    expect(c.operators_by_nick).toBe(false);
    expect(c.agents.map((a) => a.allow)).toEqual([null, ["alice", "bob"]]);
  });

  it("rejects a bad allow value, naming the key", () => {
    expect(() => resolveConfig({ allow: "friends" })).toThrow(/allow/);
    expect(() => resolveConfig({ agents: [{ nick: "spark-a", allow: [] }] })).toThrow(/agents\.0\.allow|allow/);
    expect(() => resolveConfig({ operators_by_nick: "yes" })).toThrow(/operators_by_nick/);
  });
});
