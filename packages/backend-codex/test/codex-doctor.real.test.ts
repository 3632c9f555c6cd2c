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
import { npmInstallCulture } from "./helpers/npm-culture.js";

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
    expect(checks.slice(0, 2).map((c) => [c.ok, c.name])).toEqual([
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

  describe("culture channel from the sandbox (issue #31)", () => {
    /** A provider home (key set) with culture installed by npm first on PATH. */
    async function withNpmCulture(): Promise<{ env: Record<string, string>; bin: string }> {
      const env: Record<string, string> = { ...home(cacheRoot, providerConfigToml("http://127.0.0.1:9")), [MODEL_KEY_VAR]: "k" };
      const { bin, binDir } = await npmInstallCulture(join(env.HOME!, "npm-global"), env.HOME!);
      return { env: { ...env, PATH: `${binDir}:${env.PATH}`, CULTURE_NICK: "spark-doc", CULTURE_HOME: join(env.HOME!, ".culture") }, bin };
    }
    const channelCheck = (checks: Awaited<ReturnType<typeof codexDoctor>>) => checks.find((c) => /culture channel/.test(c.name));

    it("exec-rule, culture installed by npm (bin symlink to culture.cjs): codex execpolicy check passes the rules culture writes", async () => {
      const { env, bin } = await withNpmCulture();
      const check = channelCheck(await codexDoctor({ executable }, env, env.HOME));
      expect(check).toMatchObject({ ok: true, name: "codex rules for culture channel" });
      expect(check!.detail).toContain(bin);
    });

    it("exec-rule, a rules file of the user's that Codex cannot parse: fails naming that file", async () => {
      const { env } = await withNpmCulture();
      mkdirSync(join(env.CODEX_HOME!, "rules"), { recursive: true });
      const broken = join(env.CODEX_HOME!, "rules", "mine.rules");
      writeFileSync(broken, 'host_executable(name = "git", paths = ["/usr/bin/not-git"])\n');
      const check = channelCheck(await codexDoctor({ executable }, env, env.HOME));
      expect(check).toMatchObject({ ok: false, name: "codex rules for culture channel" });
      expect(check!.detail).toContain("must have basename `git`");
      expect(check!.fix).toContain(broken);
    });

    it("exec-rule, a user rule that forbids culture: fails, the agent could not speak", async () => {
      const { env } = await withNpmCulture();
      mkdirSync(join(env.CODEX_HOME!, "rules"), { recursive: true });
      writeFileSync(join(env.CODEX_HOME!, "rules", "deny.rules"), 'prefix_rule(pattern = ["culture"], decision = "forbidden")\n');
      const check = channelCheck(await codexDoctor({ executable }, env, env.HOME));
      expect(check).toMatchObject({ ok: false });
      expect(check!.detail).toContain("decision: forbidden");
    });

    it("exec-rule without culture on PATH: fails, with how to install it", async () => {
      const env: Record<string, string> = { ...home(cacheRoot, providerConfigToml("http://127.0.0.1:9")), [MODEL_KEY_VAR]: "k", PATH: "/usr/bin:/bin" };
      const check = channelCheck(await codexDoctor({ executable }, env, env.HOME));
      expect(check).toMatchObject({ ok: false, name: "codex rules for culture channel" });
      expect(check!.fix).toContain("npm install -g culture");
    });

    it("network: a connect from the real sandbox is allowed; none: a warning", async () => {
      const { env } = await withNpmCulture();
      const network = channelCheck(await codexDoctor({ executable, channel_access: "network" }, env, env.HOME));
      expect(network, JSON.stringify(network)).toMatchObject({ ok: true, name: "culture channel from the codex sandbox" });
      expect(network!.detail).toMatch(/is allowed from the sandbox \(ENOENT: allowed, the daemon is not running\)/);
      const none = channelCheck(await codexDoctor({ executable, channel_access: "none" }, env, env.HOME));
      expect(none).toMatchObject({ ok: true, warning: true });
    });
  });
});
