/** Presence: the state table, the wire forms, and the rate limit of the publisher. */
import { describe, expect, it } from "vitest";
import { createLogger } from "../src/logger.js";
import { PresencePublisher } from "../src/daemon/presence-publisher.js";
import { awayText, derivePresenceState, parsePresenceLine, presenceLine, type Presence, type PresenceFacts } from "../src/daemon/presence-state.js";

const base: PresenceFacts = {
  lifecycle: "running",
  restarting: false,
  circuitOpen: false,
  fatal: null,
  paused: false,
  stalled: false,
  approvalsPending: 0,
  turn: false,
  task: null,
  tool: null,
  queued: 0,
  turns: 0,
  linkUp: true,
};

describe("derivePresenceState", () => {
  it.each<[Partial<PresenceFacts>, string]>([
    [{}, "idle"],
    [{ queued: 2 }, "queued"],
    [{ turn: true }, "thinking"],
    [{ turn: true, tool: { name: "Bash", since: 1 } }, "running"],
    [{ turn: true, tool: { name: "Bash", since: 1 }, approvalsPending: 1 }, "waiting"],
    [{ turn: true, stalled: true }, "stalled"],
    [{ stalled: true }, "idle"], // a stall outside a turn is not one
    [{ turn: true, stalled: true, paused: true }, "paused"],
    [{ paused: true, overBudget: true }, "over_budget"],
    [{ circuitOpen: true, overBudget: true }, "circuit_open"],
    [{ fatal: "no binary" }, "circuit_open"],
    [{ restarting: true }, "starting"],
    [{ lifecycle: "starting", turn: true }, "starting"],
    [{ lifecycle: "stopping", turn: true }, "stopping"],
    [{ lifecycle: "stopped" }, "offline"],
  ])("%j -> %s", (facts, state) => {
    expect(derivePresenceState({ ...base, ...facts })).toBe(state);
  });
});

const p = (over: Partial<Presence>): Presence => ({ state: "idle", since: 1000, tool: null, toolSince: null, queued: 0, turns: 3, approvals: 0, task: null, ...over });

describe("wire forms", () => {
  it("round-trips a presence line, encoding spaces, = and % in values", () => {
    const line = presenceLine(p({ state: "running", tool: "weird tool=50%", toolSince: 990.7, queued: 2 }));
    expect(line).toBe("culture-presence v=1 state=running since=1000 tool=weird%20tool%3D50%25 tool_since=990 queued=2 turns=3 approvals=0");
    expect(parsePresenceLine(line)).toMatchObject({ v: 1, state: "running", tool: "weird tool=50%", toolSince: 990, queued: 2, turns: 3 });
  });

  it("reads unknown keys, ignores junk, refuses lines that are not presence", () => {
    expect(parsePresenceLine("culture-presence v=2 state=idle spend=1.5 junk %zz=1 bad=%zz")?.fields).toMatchObject({ spend: "1.5", bad: "%zz" });
    expect(parsePresenceLine("hello culture-presence v=1 state=idle")).toBeNull();
    expect(parsePresenceLine("culture-presence v=1")).toBeNull();
  });

  it("is not away when idle; names the tool, its elapsed time and the queue otherwise; fits AWAYLEN", () => {
    expect(awayText(p({}))).toBeNull();
    expect(awayText(p({ state: "running", tool: "Bash", toolSince: 1000, task: "fix it", queued: 1 }), 1075)).toBe("running Bash for 1m15s: fix it (1 queued)");
    expect(awayText(p({ state: "queued", queued: 4 }))).toBe("queued (4)");
    const long = awayText(p({ state: "thinking", task: "é".repeat(300) }), 1000, 200)!;
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(200);
    expect(awayText(p({ state: "thinking", task: "a\r\nQUIT :x" }))).not.toMatch(/[\r\n]/);
  });
});

describe("PresencePublisher", () => {
  /** A publisher with a 50 ms interval on a clock the test moves, and what it published. */
  function rig(current: Presence, options: { quietStart?: boolean } = {}) {
    const r = { now: 0, current, lines: [] as string[], aways: [] as Array<string | null> };
    const make = () =>
      new PresencePublisher({
        read: () => r.current,
        channel: "#culture-presence",
        minIntervalMs: 50,
        heartbeatMs: 60_000,
        logger: createLogger({ level: "silent" }),
        clock: { now: () => r.now },
        sink: { up: () => true, setAway: (t) => r.aways.push(t), post: (l) => r.lines.push(l) },
        ...options,
      });
    return { r, make };
  }

  it("publishes the first change at once, coalesces a burst into one update with the latest state, and skips no-ops", async () => {
    const { r, make } = rig(p({}));
    const pub = make();
    pub.poke(true);
    expect(r.lines).toHaveLength(1);
    r.now = 10;
    for (const state of ["thinking", "running", "thinking", "running"] as const) {
      r.current = p({ state, tool: state === "running" ? "Bash" : null, toolSince: state === "running" ? 5 : null });
      pub.poke();
    }
    expect(r.lines).toHaveLength(1); // within the interval: one update is due
    r.now = 60;
    await new Promise((res) => setTimeout(res, 80));
    expect(r.lines).toHaveLength(2);
    expect(parsePresenceLine(r.lines[1]!)?.state).toBe("running");
    pub.poke(); // nothing changed
    await new Promise((res) => setTimeout(res, 80));
    expect(r.lines).toHaveLength(2);
    pub.stop();
    expect(r.aways).toEqual([null, expect.stringMatching(/^running Bash for /)]);
  });

  it("with quietStart, holds the first update for the interval from its creation: a start over by then is never announced, a longer one is", async () => {
    const { r, make } = rig(p({ state: "starting" }), { quietStart: true });
    r.now = 1_000;
    // A quick start: starting, then idle within the interval; one update, idle (not away).
    const quick = make();
    quick.poke(true); // joined the presence channel
    quick.poke();
    expect(r.lines).toEqual([]);
    expect(r.aways).toEqual([]);
    r.current = p({ state: "idle" });
    quick.poke();
    r.now += 50;
    await new Promise((res) => setTimeout(res, 80));
    expect(r.lines.map((l) => parsePresenceLine(l)?.state)).toEqual(["idle"]);
    expect(r.aways).toEqual([null]);
    quick.stop();
    // A slow start: still starting when the interval is over, so it says so then.
    r.lines.length = 0;
    r.aways.length = 0;
    r.current = p({ state: "starting" });
    const slow = make();
    slow.poke();
    r.now += 50;
    await new Promise((res) => setTimeout(res, 80));
    expect(r.lines.map((l) => parsePresenceLine(l)?.state)).toEqual(["starting"]);
    expect(r.aways).toEqual(["starting"]);
    slow.stop();
  });
});
