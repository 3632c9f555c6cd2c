import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import claudeBackend from "../src/index.js";
import { checkCredentials } from "../src/claude-doctor.js";
import { claudeOptionsSchema } from "../src/claude-options.js";
import { createHarness, FAKE_CLAUDE, type Harness } from "./fake-claude-harness.js";

let h: Harness;
beforeEach(() => {
  h = createHarness();
});
afterEach(() => h.cleanup());

/** Options as the CLI passes them: parsed by the backend's configSchema. */
const options = (fields: Record<string, unknown>) => claudeOptionsSchema.parse(fields);
const baseEnv = (home: string) => ({ PATH: process.env.PATH, HOME: home });

describe("claude doctor", () => {
  it("runs the configured executable's --version and finds credentials in ~/.claude/.credentials.json", async () => {
    mkdirSync(join(h.root, ".claude"));
    writeFileSync(join(h.root, ".claude", ".credentials.json"), JSON.stringify({ claudeAiOauth: { accessToken: "sk-ant-oat-SECRET" } }));
    const checks = await claudeBackend.doctor!(options({ executable: FAKE_CLAUDE }), baseEnv(h.root));
    expect(checks).toEqual([
      { ok: true, name: "Claude Code CLI", detail: `${FAKE_CLAUDE} (2.1.330 (Claude Code))` },
      { ok: true, name: "Claude Code credentials", detail: `signed in (${join(h.root, ".claude", ".credentials.json")})` },
    ]);
    expect(JSON.stringify(checks)).not.toContain("SECRET");
  });

  it("says which variable holds the credentials, never its value", () => {
    const check = checkCredentials({ HOME: h.root, ANTHROPIC_API_KEY: "sk-ant-api-SECRET" });
    expect(check).toEqual({ ok: true, name: "Claude Code credentials", detail: "ANTHROPIC_API_KEY is set" });
    expect(checkCredentials({ HOME: h.root, CLAUDE_CODE_OAUTH_TOKEN: "tok" }).detail).toBe("CLAUDE_CODE_OAUTH_TOKEN is set");
    // The agent's env: counts too.
    return claudeBackend.doctor!(options({ executable: FAKE_CLAUDE, env: { ANTHROPIC_API_KEY: "sk-SECRET" } }), baseEnv(h.root)).then((checks) => {
      expect(checks[1]).toMatchObject({ ok: true, detail: "ANTHROPIC_API_KEY is set" });
      expect(JSON.stringify(checks)).not.toContain("SECRET");
    });
  });

  it.skipIf(process.platform === "darwin")("the daemon's preflight: E_AGENT_AUTH without credentials, null with a key (the agent's env: counts)", async () => {
    const err = await claudeBackend.preflight!(options({ executable: FAKE_CLAUDE }), baseEnv(h.root));
    expect(err?.code).toBe("E_AGENT_AUTH");
    expect(err?.message).toMatch(/requires authentication before it can start a session\.\nSign in with one of its login methods/);
    expect(err?.message).toContain("claude login");
    expect(await claudeBackend.preflight!(options({ executable: FAKE_CLAUDE, env: { ANTHROPIC_API_KEY: "sk-SECRET" } }), baseEnv(h.root))).toBeNull();
    expect(await claudeBackend.preflight!(options({}), { ...baseEnv(h.root), CLAUDE_CODE_USE_BEDROCK: "1" })).toBeNull();
  });

  it.skipIf(process.platform === "darwin")("fails without credentials, naming the ways to sign in", () => {
    const check = checkCredentials({ HOME: h.root });
    expect(check.ok).toBe(false);
    expect(check.fix).toContain("claude login");
    expect(check.fix).toContain("ANTHROPIC_API_KEY");
  });

  it("fails for an executable that is not there, naming the executable key", async () => {
    const [exe] = await claudeBackend.doctor!(options({ executable: join(h.root, "no-claude") }), baseEnv(h.root));
    expect(exe).toMatchObject({ ok: false, name: "Claude Code CLI" });
    expect(exe!.detail).toContain("no-claude");
    expect(exe!.fix).toContain("executable:");
  });

  it("fails for an executable that does not run", async () => {
    const broken = join(h.root, "broken-claude");
    writeFileSync(broken, "#!/bin/sh\necho 'claude: bad install' >&2\nexit 4\n", { mode: 0o755 });
    const [exe] = await claudeBackend.doctor!(options({ executable: broken }), baseEnv(h.root));
    expect(exe).toMatchObject({ ok: false, name: "Claude Code CLI" });
    expect(exe!.detail).toContain("claude: bad install");
  });
});
