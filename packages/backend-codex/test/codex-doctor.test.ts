import { afterEach, beforeEach, describe, expect, it } from "vitest";
import codexBackend from "../src/index.js";
import { createHarness, type Harness } from "./helpers/fake-codex-harness.js";

let h: Harness;
beforeEach(() => {
  h = createHarness();
});
afterEach(() => h.cleanup());

describe("codex doctor", () => {
  it("checks that codex runs and is signed in", async () => {
    const checks = await codexBackend.doctor!({ executable: h.codex } as never, h.env());
    // The third check (the rules culture writes, through `codex execpolicy check`) needs the real
    // Codex: codex-doctor.real.test.ts proves it; the fake only speaks version, login and app-server.
    expect(checks.slice(0, 2)).toEqual([
      { ok: true, name: `codex executable (${h.codex})`, detail: `codex-cli 0.0.0-fake (${h.codex})` },
      { ok: true, name: "codex login", detail: "Logged in using ChatGPT" },
    ]);
  });

  it("finds codex on PATH by default", async () => {
    const checks = await codexBackend.doctor!({} as never, h.env());
    expect(checks.slice(0, 2).map((c) => c.ok)).toEqual([true, true]);
    expect(checks[2]?.name).toBe("codex rules for culture channel");
    expect(checks[0]!.detail).toContain(h.codex);
  });

  it("reports a Codex that is not signed in, with the login command", async () => {
    const checks = await codexBackend.doctor!({} as never, h.env({ FAKE_CODEX_LOGGED_OUT: "1" }));
    expect(checks[1]).toMatchObject({ ok: false, name: "codex login", detail: "Not logged in" });
    expect(checks[1]!.fix).toContain("codex login");
  });

  it("reports a missing codex with how to install it", async () => {
    const checks = await codexBackend.doctor!({} as never, { PATH: "/nonexistent" });
    expect(checks).toHaveLength(1);
    expect(checks[0]).toMatchObject({ ok: false, detail: "codex is not on PATH" });
    expect(checks[0]!.fix).toContain("npm install -g @openai/codex");
  });
});
