/** The pacing of `culture start --all`: a bounded number of daemons at once, results in order. */
import { describe, expect, it } from "vitest";
import { defaultParallelStarts, parseParallel, startInWaves, STARTS_PER_CORE } from "../src/start-waves.js";

describe("startInWaves", () => {
  it("never runs more than the limit at once, starts the next as soon as one settles, and keeps the order", async () => {
    let running = 0;
    let most = 0;
    const gates: Array<() => void> = [];
    const started: number[] = [];
    const done = startInWaves([0, 1, 2, 3, 4, 5, 6], 3, async (i) => {
      started.push(i);
      running++;
      most = Math.max(most, running);
      await new Promise<void>((r) => gates.push(r));
      running--;
      return `r${i}`;
    });
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2]);
    // One settles: exactly one more begins.
    gates.shift()!();
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1, 2, 3]);
    // Settle the rest in reverse order of starting, as they come.
    while (started.length < 7 || gates.length) {
      gates.pop()?.();
      await new Promise((r) => setImmediate(r));
    }
    expect(await done).toEqual(["r0", "r1", "r2", "r3", "r4", "r5", "r6"]);
    expect(most).toBe(3);
  });

  it("handles fewer items than the limit, and none", async () => {
    expect(await startInWaves([1, 2], 8, async (i) => i * 2)).toEqual([2, 4]);
    expect(await startInWaves([], 8, async (i: number) => i)).toEqual([]);
  });
});

describe("--parallel", () => {
  it(`defaults to ${STARTS_PER_CORE} per core, at least 2`, () => {
    expect(defaultParallelStarts(1)).toBe(Math.max(2, STARTS_PER_CORE));
    expect(defaultParallelStarts(2)).toBe(2 * STARTS_PER_CORE);
    expect(defaultParallelStarts(16)).toBe(16 * STARTS_PER_CORE);
    expect(parseParallel(undefined)).toBe(defaultParallelStarts());
    expect(parseParallel("1")).toBe(1);
    expect(parseParallel("50")).toBe(50);
  });

  it("refuses anything but a whole number of 1 or more", () => {
    for (const bad of ["0", "-2", "1.5", "", "many", "Infinity", "1e400", "NaN"]) {
      expect(() => parseParallel(bad), bad).toThrow(/--parallel must be a whole number of daemons \(1 or more\)/);
    }
  });
});
