/**
 * `culture backend create` then `npm install` from a clone of culture, before @culture/core is
 * on any registry: the scaffold's dev dependency links to the clone's packages/core (file:), so
 * npm install (zod, tsup, vitest from the public registry) and the conformance kit pass.
 * npm's cache is the registry tests' persistent one (~/.cache/culture/registry-test/npm-cache),
 * so a second run downloads nothing new. Without the network on a first run it fails with npm's
 * output — it never skips.
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect, it } from "vitest";
// @ts-expect-error -- a plain ESM script shared with bench/, no types.
import { cleanEnv, registryCacheDir, runCommand } from "../../../scripts/local-registry.mjs";

const MAIN = fileURLToPath(new URL("../dist/main.js", import.meta.url));
const CORE = realpathSync(fileURLToPath(new URL("../../core", import.meta.url)));
const root = realpathSync(mkdtempSync(join(tmpdir(), "culture-bc-clone-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

it("culture backend create foo, then npm install and npm test in it, work from a clone", async () => {
  const env = { ...cleanEnv(), npm_config_cache: join(registryCacheDir(), "npm-cache"), npm_config_fund: "false", npm_config_audit: "false" };
  const created = (await runCommand(process.execPath, [MAIN, "backend", "create", "foo"], { cwd: root, env })) as Run;
  expect(created.code, created.stderr).toBe(0);
  const dir = join(root, "culture-backend-foo");
  expect(JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).devDependencies["@culture/core"]).toBe(`file:${CORE}`);

  const installed = (await runCommand("npm", ["install", "--prefer-offline"], { cwd: dir, env, timeoutMs: 300_000 })) as Run;
  expect(installed.code, `npm install failed:\n${installed.stdout.slice(-3000)}\n${installed.stderr.slice(-3000)}`).toBe(0);
  expect(realpathSync(join(dir, "node_modules", "@culture", "core"))).toBe(CORE);

  const tested = (await runCommand("npm", ["test"], { cwd: dir, env, timeoutMs: 300_000 })) as Run;
  expect(tested.code, `npm test failed:\n${tested.stdout.slice(-3000)}\n${tested.stderr.slice(-3000)}`).toBe(0);
  expect(tested.stdout).toMatch(/Tests\s+\d+ passed/);
}, 600_000);
