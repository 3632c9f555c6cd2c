/**
 * `culture status`: the CTX cell (how full the agent's context window is, from the daemon's
 * `context` status field) and the row state of an agent a model-API failure paused.
 */
import { describe, expect, it } from "vitest";
import { contextCell, rowState } from "../src/commands/status.js";

describe("culture status: context and fatal pauses", () => {
  it.each([
    [{ used_tokens: 750_001, window_tokens: 1_000_000, share: 0.75 }, "75%"],
    [{ used_tokens: 41_200, window_tokens: null, share: null }, "41k"],
    [{ used_tokens: 900, window_tokens: null, share: null }, "900"],
    [undefined, "-"],
    [{ share: "lots" }, "-"],
  ])("CTX of %j is %s", (context, cell) => {
    expect(contextCell(context)).toBe(cell);
  });

  it("shows an agent paused by a model-API failure as paused, and one that cannot sign in as circuit-open", () => {
    expect(rowState({ circuit_open: true, fatal: { reason: "prompt_too_long", message: "..." } })).toBe("paused");
    expect(rowState({ circuit_open: true, fatal: { reason: "auth", message: "..." } })).toBe("circuit-open");
    expect(rowState({ circuit_open: true, fatal: null })).toBe("circuit-open");
    expect(rowState({ circuit_open: false, fatal: null, daemon_state: "ready" })).toBe("running");
  });
});
