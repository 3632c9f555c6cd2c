import { describe, expect, it } from "vitest";
import { AcpSessionCost } from "../src/acp-usage.js";

describe("AcpSessionCost", () => {
  it("turns usage_update's cumulative session cost into each turn's cost", () => {
    const c = new AcpSessionCost();
    c.reset(0);
    c.note({ cost: { amount: 0.1, currency: "USD" } });
    c.note({ cost: { amount: 0.25, currency: "USD" } });
    expect(c.take(true)).toBeCloseTo(0.25);
    c.note({ cost: { amount: 0.4, currency: "usd" } });
    expect(c.take(true)).toBeCloseTo(0.15);
  });

  it("does not guess: a loaded session's first turn, another currency, and a figure that stayed 0 while tokens were used are unknown", () => {
    const c = new AcpSessionCost();
    c.reset(null);
    c.note({ cost: { amount: 3, currency: "USD" } });
    expect(c.take(true)).toBeNull(); // the history's cost is not this turn's
    c.note({ cost: { amount: 3.5, currency: "USD" } });
    expect(c.take(true)).toBeCloseTo(0.5);
    c.note({ cost: { amount: 9, currency: "EUR" } });
    expect(c.take(true)).toBeNull();
    const zero = new AcpSessionCost();
    zero.reset(0);
    zero.note({ cost: { amount: 0, currency: "USD" } });
    expect(zero.take(true)).toBeNull();
    expect(zero.take(false)).toBe(0);
  });
});
