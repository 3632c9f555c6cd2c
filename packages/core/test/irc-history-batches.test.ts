import { describe, expect, it } from "vitest";
import { HistoryBatches } from "../src/irc/history-batches.js";

describe("HistoryBatches", () => {
  it("knows open history batches and reports the target when one ends", () => {
    const b = new HistoryBatches();
    expect(b.onBatch(["+h1", "CHATHISTORY", "#Chan"])).toBeNull();
    expect(b.onBatch(["+n1", "netjoin", "a.example", "b.example"])).toBeNull();
    expect(b.isHistory("h1")).toBe(true);
    expect(b.isHistory("n1")).toBe(false);
    expect(b.isHistory(undefined)).toBe(false);
    expect(b.onBatch(["-n1"])).toBeNull();
    expect(b.onBatch(["-h1"])).toBe("#Chan");
    expect(b.isHistory("h1")).toBe(false);
    expect(b.onBatch(["-h1"])).toBeNull();
  });

  it("takes the draft batch type and forgets everything on clear", () => {
    const b = new HistoryBatches();
    b.onBatch(["+d", "draft/chathistory", "#x"]);
    expect(b.isHistory("d")).toBe(true);
    b.clear();
    expect(b.isHistory("d")).toBe(false);
  });
});
