/**
 * `culture doctor`'s Codex checks against the REAL Codex CLI 0.169.0 (no daemon, no model):
 * a custom model provider with `env_key` (culture's documented local-model setup), a missing
 * key, and a Codex that is not signed in whose output starts with a WARNING line.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { codexDoctor } from "../src/codex-doctor.js";
import { MODEL_KEY_VAR, providerConfigToml, realCodexExecutable } from "./helpers/real-codex.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A Codex home under `root` whose config.toml is `toml` (none when null). */
function home(root: string, toml: string | null): Record<string, string> {
  const dir = mkdtempSync(join(root, "codex-doctor-"));
  dirs.push(dir);
  mkdirSync(join(dir, ".codex"), { recursive: true });
  if (toml !== null) writeFileSync(join(dir, ".codex", "config.toml"), toml);
  return { PATH: process.env.PATH ?? "", HOME: dir, CODEX_HOME: join(dir, ".codex") };
}

describe("codex doctor with the real Codex CLI", () => {
  const executable = realCodexExecutable();
  const cacheRoot = join(process.env.HOME ?? tmpdir(), ".cache", "culture", "test-homes");
  mkdirSync(cacheRoot, { recursive: true });

  it("a custom model provider with env_key: checks the key's variable, not `codex login`", async () => {
    const env = { ...home(cacheRoot, providerConfigToml("http://127.0.0.1:9")), [MODEL_KEY_VAR]: "k" };
    const checks = await codexDoctor({ executable }, env);
    expect(checks.map((c) => [c.ok, c.name])).toEqual([
      [true, `codex executable (${executable})`],
      [true, 'codex model provider "local"'],
    ]);
    expect(checks[0]!.detail).toMatch(/^codex-cli 0\.169\.0 /);
    expect(checks[1]!.detail).toContain(`API key from $${MODEL_KEY_VAR}`);
  });

  it("a custom model provider whose key variable is not set: fails naming the variable", async () => {
    const checks = await codexDoctor({ executable }, home(cacheRoot, providerConfigToml("http://127.0.0.1:9")));
    expect(checks[1]).toMatchObject({ ok: false, name: 'codex model provider "local"' });
    expect(checks[1]!.detail).toContain(`$${MODEL_KEY_VAR} is not set`);
    expect(checks[1]!.fix).toContain(`export ${MODEL_KEY_VAR}=`);
  });

  it("OpenAI, not signed in, CODEX_HOME under /tmp: shows Codex's reason, not its WARNING line", async () => {
    const checks = await codexDoctor({ executable }, home(tmpdir(), null));
    expect(checks[0]!.ok).toBe(true);
    expect(checks[0]!.detail).toMatch(/^codex-cli 0\.169\.0 /);
    expect(checks[1]).toMatchObject({ ok: false, name: "codex login", detail: "Not logged in" });
  });
});
