/**
 * Running npm for `culture backend add/remove`: npm's own output goes to the user's terminal
 * (stderr), so a registry or network problem is shown in npm's words.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The npm executable (npm.cmd on Windows). */
export const NPM = process.platform === "win32" ? "npm.cmd" : "npm";

/** Runs `npm <args>` with `--prefix dir`; resolves with npm's exit code (null: npm could not be run). */
export function runNpm(args: readonly string[], dir: string): Promise<number | null> {
  return new Promise((done) => {
    const child = spawn(NPM, [...args, "--prefix", dir, "--no-fund", "--no-audit"], {
      cwd: dir,
      // npm's progress and errors on stderr; stdout stays culture's.
      stdio: ["ignore", process.stderr, process.stderr],
    });
    child.once("error", () => done(null));
    child.once("close", (code) => done(code ?? 1));
  });
}

/**
 * Makes `dir` an npm prefix of its own: a folder with a package.json, so npm installs there and
 * not into a package.json further up. Used for culture's backends folder.
 */
export function ensureNpmPrefix(dir: string, description: string): void {
  mkdirSync(dir, { recursive: true });
  const manifest = join(dir, "package.json");
  if (!existsSync(manifest)) {
    writeFileSync(manifest, `${JSON.stringify({ name: "culture-backends", private: true, description }, null, 2)}\n`);
  }
}
