import { isCultureError } from "@culture/core";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { copilotDoctor } from "../src/copilot-doctor.js";
import { bundledRuntimePath, findRuntime } from "../src/find-runtime.js";
import { createHarness, FAKE_RUNTIME, type Harness } from "./fake-runtime-harness.js";

let h: Harness;
beforeEach(() => {
  h = createHarness();
});
afterEach(() => h.cleanup());

describe("finding the runtime", () => {
  it("uses executable, a command name on PATH, and COPILOT_CLI_PATH", async () => {
    expect(await findRuntime({ executable: FAKE_RUNTIME }, {}, h.directory)).toEqual({ path: FAKE_RUNTIME, source: "executable" });
    const bin = join(h.root, "bin");
    mkdirSync(bin);
    symlinkSync(FAKE_RUNTIME, join(bin, "copilot"));
    expect(await findRuntime({ executable: "copilot" }, { PATH: bin }, h.directory)).toEqual({ path: join(bin, "copilot"), source: "executable" });
    expect(await findRuntime({ executable: null }, { COPILOT_CLI_PATH: FAKE_RUNTIME }, h.directory)).toEqual({ path: FAKE_RUNTIME, source: "COPILOT_CLI_PATH" });
    // Without the bundled runtime (not installed here), copilot on PATH is next.
    if (bundledRuntimePath() === null) {
      expect(await findRuntime({ executable: null }, { PATH: bin }, h.directory)).toEqual({ path: join(bin, "copilot"), source: "PATH" });
    }
  });

  it("says how to get a runtime when there is none", async () => {
    if (bundledRuntimePath() !== null) return; // the optional platform package is installed here
    const err = await findRuntime({ executable: null }, { PATH: h.root }, h.directory).catch((e: unknown) => e);
    expect(isCultureError(err, "E_AGENT_COMMAND_NOT_FOUND")).toBe(true);
    expect((err as Error).message).toContain("npm install -g @github/copilot");
    expect((err as Error).message).toContain("executable");
  });
});

describe("copilot doctor", () => {
  it("reports the runtime and the signed-in account", async () => {
    const checks = await copilotDoctor({ executable: FAKE_RUNTIME }, h.env());
    expect(checks.map((c) => [c.name, c.ok])).toEqual([
      ["Copilot runtime", true],
      ["Copilot sign-in", true],
    ]);
    expect(checks[0]!.detail).toContain(FAKE_RUNTIME);
    expect(checks[1]!.detail).toBe("signed in as fake-user (user)");
  });

  it("says how to sign in when the runtime is not signed in", async () => {
    const checks = await copilotDoctor({ executable: FAKE_RUNTIME }, h.env({ FAKE_COPILOT_AUTH: "none" }));
    expect(checks[1]).toMatchObject({ ok: false, name: "Copilot sign-in" });
    expect(checks[1]!.fix).toContain("/login");
    expect(checks[1]!.fix).toContain("GH_TOKEN");
  });

  it("does not ask for a GitHub sign-in when the agent has its own model provider (BYOK)", async () => {
    const provider = { type: "openai" as const, wire_api: "completions" as const, base_url: "http://127.0.0.1:11434/v1", api_key: null, bearer_token: null };
    const checks = await copilotDoctor({ executable: FAKE_RUNTIME, provider }, h.env({ FAKE_COPILOT_AUTH: "none" }));
    expect(checks.map((c) => [c.name, c.ok])).toEqual([
      ["Copilot runtime", true],
      ["Copilot sign-in", true],
    ]);
    expect(checks[1]!.detail).toBe("not needed: the agent uses its own model provider (openai, completions, http://127.0.0.1:11434/v1)");
  });

  it("reports a missing executable without starting anything", async () => {
    const checks = await copilotDoctor({ executable: "/nonexistent/copilot" }, h.env());
    expect(checks).toHaveLength(1);
    expect(checks[0]).toMatchObject({ ok: false, name: "Copilot runtime" });
    expect(checks[0]!.detail).toContain("/nonexistent/copilot");
  });
});
