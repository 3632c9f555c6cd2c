/**
 * `culture` installed the way npm installs a package's bin: `npm install -g --prefix <dir>` of
 * this checkout's CLI package (offline: npm links a folder), which makes the bin a symlink
 * `<dir>/bin/culture -> ../lib/node_modules/culture/bin/culture.cjs`, as `npm i -g culture`
 * from a registry does (packages/cli/test/install.registry.test.ts).
 */
import { execa } from "execa";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const CLI_PACKAGE = fileURLToPath(new URL("../../../cli", import.meta.url));

/** Installs the CLI under `prefix`; returns the bin symlink and its folder (to put first on PATH). */
export async function npmInstallCulture(prefix: string, home: string): Promise<{ bin: string; binDir: string }> {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, npm_config_cache: join(home, ".npm") };
  const r = await execa("npm", ["install", "-g", "--prefix", prefix, "--offline", "--no-audit", "--no-fund", CLI_PACKAGE], { env, extendEnv: false, reject: false });
  if (r.exitCode !== 0) throw new Error(`npm install -g --prefix ${prefix} ${CLI_PACKAGE} failed (exit ${r.exitCode}):\n${r.stdout}\n${r.stderr}`);
  return { bin: join(prefix, "bin", "culture"), binDir: join(prefix, "bin") };
}
