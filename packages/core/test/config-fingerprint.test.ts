/**
 * The config fingerprint a daemon records at start and the drift `culture status` reports:
 * which keys changed (agent fields, backend fields, top-level sections), nothing for a file that
 * only reorders keys, a `${VAR}` whose value changed counts, and no value — secrets included —
 * is in the fingerprint.
 */
import { describe, expect, it } from "vitest";
import { configDrift, configFingerprint, describeDrift, isConfigFingerprint } from "../src/config/config-fingerprint.js";
import { resolveConfig } from "../src/config/load-config.js";

const SECRET = "whsec-never-in-clear-1234";

function load(data: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) {
  return resolveConfig({ server: { name: "spark", port: 6667 }, webhooks: { secret: SECRET }, ...data }, { filepath: "/tmp/agents.yaml", env });
}
const agent = (c: ReturnType<typeof load>, nick = "spark-a") => c.agents.find((a) => a.nick === nick);

describe("config fingerprint and drift", () => {
  const base = { agents: [{ nick: "spark-a", agent: "echo", model: "m1", prefix: "x" }, { nick: "spark-b" }] };
  const started = load(base);
  const f = configFingerprint(started, agent(started)!);

  it("holds digests only: no value, no secret", () => {
    expect(isConfigFingerprint(f)).toBe(true);
    const text = JSON.stringify(f);
    for (const value of [SECRET, "m1", "spark-a", "6667"]) expect(text).not.toContain(value);
    expect(Object.keys(f.keys)).toEqual(expect.arrayContaining(["model", "prefix", "top-level webhooks", "top-level server"]));
  });

  it.each([
    ["nothing changed", base, []],
    ["the same values with keys in another order", { agents: [{ prefix: "x", model: "m1", agent: "echo", nick: "spark-a" }, { nick: "spark-b" }] }, []],
    ["another agent changed", { agents: [base.agents[0], { nick: "spark-b", model: "other" }] }, []],
    ["the model", { agents: [{ ...base.agents[0], model: "m2" }, base.agents[1]] }, ["model"]],
    ["a backend field", { agents: [{ ...base.agents[0], prefix: "y" }, base.agents[1]] }, ["prefix"]],
    ["a backend field added", { agents: [{ ...base.agents[0], behaviour: "hang" }, base.agents[1]] }, ["behaviour"]],
    ["a backend field removed", { agents: [{ nick: "spark-a", agent: "echo", model: "m1" }, base.agents[1]] }, ["prefix"]],
    ["a default written out explicitly", { agents: [{ ...base.agents[0], thinking: "medium" }, base.agents[1]] }, []],
    ["a top-level section and an agent field", { agents: [{ ...base.agents[0], model: "m2" }, base.agents[1]], receipts: "notice" }, ["model", "top-level receipts"]],
  ] as const)("%s", (_what, data, expected) => {
    const now = load(data as Record<string, unknown>);
    expect(configDrift(f, now, agent(now))).toEqual(expected);
  });

  it("a rotated secret is a change of its section, named, never shown", () => {
    const now = resolveConfig({ server: { name: "spark", port: 6667 }, webhooks: { secret: `${SECRET}-2` }, ...base }, { filepath: "/tmp/agents.yaml" });
    const drift = configDrift(f, now, agent(now));
    expect(drift).toEqual(["top-level webhooks"]);
    expect(describeDrift("spark-a", drift)).toBe("config changed since start (top-level webhooks): culture restart spark-a");
  });

  it("a ${VAR} whose value changed counts; the same value does not", () => {
    const withVar = { agents: [{ nick: "spark-a", agent: "echo", model: "${MODEL}" }] };
    const s = load(withVar, { MODEL: "m1" });
    const fp = configFingerprint(s, agent(s)!);
    const same = load(withVar, { MODEL: "m1" });
    const other = load(withVar, { MODEL: "m2" });
    expect(configDrift(fp, same, agent(same))).toEqual([]);
    expect(configDrift(fp, other, agent(other))).toEqual(["model"]);
  });

  it("an agent removed from the file: stop it", () => {
    const now = load({ agents: [{ nick: "spark-b" }] });
    const drift = configDrift(f, now, agent(now));
    expect(describeDrift("spark-a", drift)).toBe("no longer in the config it was started with: culture stop spark-a");
    expect(describeDrift("spark-a", [])).toBeNull();
  });

  it("digests depend on the salt (no table of digests of common values works)", () => {
    const g = configFingerprint(started, agent(started)!);
    expect(g.salt).not.toBe(f.salt);
    expect(g.keys.model).not.toBe(f.keys.model);
    expect(configFingerprint(started, agent(started)!, f.salt)).toEqual(f);
  });
});
