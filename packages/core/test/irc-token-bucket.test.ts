import { describe, expect, it } from "vitest";
import { TokenBucket } from "../src/irc/token-bucket.js";

describe("TokenBucket", () => {
  it("allows a burst, then one line per interval", () => {
    let now = 1_000;
    const bucket = new TokenBucket({ capacity: 3, intervalMs: 500, now: () => now });
    expect([bucket.take(), bucket.take(), bucket.take(), bucket.take()]).toEqual([true, true, true, false]);
    expect(bucket.msUntilNext()).toBe(500);
    now += 250;
    expect(bucket.take()).toBe(false);
    expect(bucket.msUntilNext()).toBe(250);
    now += 250;
    expect(bucket.take()).toBe(true);
    expect(bucket.take()).toBe(false);
  });

  it("never holds more than its capacity", () => {
    let now = 0;
    const bucket = new TokenBucket({ capacity: 2, intervalMs: 100, now: () => now });
    now += 10_000;
    expect([bucket.take(), bucket.take(), bucket.take()]).toEqual([true, true, false]);
  });

  it("refills completely on reset", () => {
    let now = 0;
    const bucket = new TokenBucket({ capacity: 2, intervalMs: 100, now: () => now });
    bucket.take();
    bucket.take();
    bucket.reset();
    expect([bucket.take(), bucket.take(), bucket.take()]).toEqual([true, true, false]);
  });

  it("rejects nonsense settings", () => {
    expect(() => new TokenBucket({ capacity: 0, intervalMs: 10 })).toThrow(/capacity/);
    expect(() => new TokenBucket({ capacity: 1, intervalMs: 0 })).toThrow(/intervalMs/);
  });
});
