/**
 * The daemon's state facts and the `stateChange` hook (the seam presence publishing and budgets
 * tap): every transition reaches the hook once, with the facts it was derived from; a change
 * that does not move the state is not a transition; the pause says who paused; the link counts
 * each disconnect once.
 */
import { describe, expect, it } from "vitest";
import { createDaemonHooks } from "../src/hooks.js";
import { createLogger } from "../src/logger.js";
import type { StateChange } from "../src/daemon/daemon-state.js";
import { RunState } from "../src/daemon/run-state.js";

function rig() {
  const keeper = { ready: false, restarting: false, circuitOpen: false, fatal: null as string | null };
  const hooks = createDaemonHooks();
  const changes: StateChange[] = [];
  hooks.stateChange.tap("test", (c) => void changes.push(c));
  let pumps = 0;
  const state = new RunState({ logger: createLogger({ level: "silent" }), keeper, pump: () => void pumps++, onChange: (c) => hooks.stateChange.call(c) });
  return { keeper, state, changes, pumps: () => pumps };
}

describe("RunState", () => {
  it("hands every transition to hooks.stateChange once, with its reason and facts", () => {
    const { keeper, state, changes, pumps } = rig();
    state.setLink("connected", "IRC link up");
    expect(changes).toEqual([]); // still starting: no transition
    keeper.ready = true;
    state.setLifecycle("running", "the daemon is up");
    state.changed("nothing moved");
    state.setPaused(true, "by alice, with @spark-bot pause", "paused");
    expect(state.pausedBy).toBe("by alice, with @spark-bot pause");
    expect(state.mayRun()).toBe(false);
    state.setPaused(false, null, "resumed");
    expect(state.pausedBy).toBeNull();
    keeper.fatal = "Claude Code is not signed in";
    state.changed("the agent cannot run");
    expect(changes.map((c) => [c.from, c.to, c.reason])).toEqual([
      ["starting", "ready", "the daemon is up"],
      ["ready", "paused", "paused"],
      ["paused", "ready", "resumed"],
      ["ready", "paused", "the agent cannot run"],
    ]);
    expect(changes[3]!.facts).toMatchObject({ lifecycle: "running", paused: true, link: "connected" });
    expect(state.history.at(-1)).toMatchObject({ state: "paused", reason: "the agent cannot run" });
    expect(pumps()).toBe(6); // every change feeds what waits, transition or not
  });

  it("counts a lost link once however often it is reported, and keeps the last error", () => {
    const { state, changes } = rig();
    state.setLifecycle("running", "up");
    state.setLink("reconnecting", "IRC link lost", "ping timeout");
    state.setLink("reconnecting", "still lost", "connection refused");
    state.setLink("connected", "IRC link up");
    state.setLink("reconnecting", "IRC link lost", "EOF");
    expect(state.link).toMatchObject({ state: "reconnecting", disconnects: 2, lastError: "EOF" });
    expect(changes.map((c) => c.to)).toEqual(["restarting"]); // the runner is not ready: the link does not decide
  });
});
