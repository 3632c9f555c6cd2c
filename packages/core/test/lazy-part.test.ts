/**
 * A daemon part loaded when first needed (daemon/lazy-part.ts, issue 30): a module that fails to
 * load reaches the log and the asker as E_PART_LOAD, never swallowed, and the next ask tries
 * again; the budget (daemon/budget-part.ts) whose engine cannot be loaded answers an operator's
 * command and `culture budget` with that error and fails a start that needs it. A daemon loads
 * none of them at start with a default config: cli/test/daemon-lazy-parts.test.ts.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { lazyPart } from "../src/daemon/lazy-part.js";
import { isCultureError } from "../src/errors.js";
import { createLogger } from "../src/logger.js";
import type { AgentBudgetOptions } from "../src/budget/agent-budget.js";

function recordingLogger() {
  const lines: string[] = [];
  return { lines, logger: createLogger({ level: "debug", write: (l) => lines.push(l) }) };
}

describe("lazyPart", () => {
  it("imports once; a failure is logged and thrown as E_PART_LOAD, and the next call tries again", async () => {
    const { lines, logger } = recordingLogger();
    let calls = 0;
    const load = lazyPart(
      "widget",
      async () => {
        calls++;
        if (calls === 1) throw new Error("Cannot find module './widget-X.js'");
        return { ok: calls };
      },
      logger,
    );
    const failed = await load().catch((e: unknown) => e);
    expect(isCultureError(failed, "E_PART_LOAD")).toBe(true);
    expect((failed as Error).message).toMatch(/^the daemon's widget could not be loaded: Cannot find module '\.\/widget-X\.js'\n/);
    expect(lines.join("\n")).toContain("the daemon's widget could not be loaded");
    expect(lines.join("\n")).toContain("E_PART_LOAD");
    expect(await load()).toEqual({ ok: 2 });
    expect(await load()).toEqual({ ok: 2 }); // shared, not imported again
    expect(calls).toBe(2);
  });
});

describe("the budget, when its engine cannot be loaded", () => {
  afterEach(() => {
    vi.doUnmock("../src/budget/agent-budget.js");
    vi.resetModules();
  });

  it("tells the operator (IRC and culture budget) and fails a start whose config has a cap", async () => {
    vi.resetModules();
    vi.doMock("../src/budget/agent-budget.js", () => {
      throw new Error("the chunk is missing");
    });
    const { BudgetPart } = await import("../src/daemon/budget-part.js");
    const { lines, logger } = recordingLogger();
    const options = (budget: unknown) =>
      ({ nick: "spark-a", config: { budget: {}, agents: [] }, agent: { nick: "spark-a", budget }, logger }) as unknown as AgentBudgetOptions;

    const none = new BudgetPart(options(null));
    await none.start(); // no cap: nothing to load
    expect(none.loaded).toBe(false);
    expect(none.blocked()).toBeNull();
    expect(none.status()).toMatchObject({ over_budget: null, held: 0, caps: [] });
    const answer = await none.command({ verb: "show" }, "alice");
    expect(answer.ok).toBe(false);
    expect(answer.lines.join("\n")).toMatch(/^the daemon's budget could not be loaded: /);
    const ipc = await none.ipc({ id: "1", type: "budget", action: "show" });
    expect(ipc).toMatchObject({ ok: false, error: expect.stringMatching(/^the daemon's budget could not be loaded/) });
    expect(none.ipc({ id: "2", type: "status" })).toBeNull();

    const capped = new BudgetPart(options({ usd: 1, per: "day" }));
    await expect(capped.start()).rejects.toMatchObject({ code: "E_PART_LOAD" });
    expect(lines.filter((l) => l.includes("could not be loaded")).length).toBe(3);
  });
});
