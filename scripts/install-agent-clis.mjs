#!/usr/bin/env node
// Installs the real agent CLIs pinned in scripts/agent-clis.json, each into its own folder
// under the cache (CULTURE_AGENT_CLI_CACHE, default ~/.cache/culture/agent-clis), with their
// optional dependencies (that is where the native binaries are). A folder that is complete
// (it has .installed) is kept, so CI downloads each version once per machine.
// Usage: node scripts/install-agent-clis.mjs [name ...]
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

const pins = JSON.parse(readFileSync(new URL("./agent-clis.json", import.meta.url), "utf8"));
const cache = process.env.CULTURE_AGENT_CLI_CACHE ?? join(homedir(), ".cache", "culture", "agent-clis");
const wanted = process.argv.slice(2).length > 0 ? process.argv.slice(2) : Object.keys(pins).filter((k) => !k.startsWith("$"));

let failed = false;
for (const name of wanted) {
  const pin = pins[name];
  if (!pin) {
    console.error(`install-agent-clis: unknown agent CLI "${name}" (known: ${Object.keys(pins).filter((k) => !k.startsWith("$")).join(", ")})`);
    process.exit(2);
  }
  const dir = join(cache, `${name}-${pin.version}`);
  if (existsSync(join(dir, ".installed"))) {
    console.log(`${name}: ${pin.package}@${pin.version} already in ${dir}`);
    continue;
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: `agent-cli-${name}`, private: true }));
  console.log(`${name}: installing ${pin.package}@${pin.version} into ${dir} ...`);
  const started = Date.now();
  try {
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--include=optional", "--loglevel=error", `${pin.package}@${pin.version}`], {
      cwd: dir,
      stdio: ["ignore", "inherit", "inherit"],
    });
    writeFileSync(join(dir, ".installed"), JSON.stringify({ ...pin, installedAt: new Date().toISOString() }));
    console.log(`${name}: done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } catch (err) {
    failed = true;
    console.error(`install-agent-clis: ${pin.package}@${pin.version} failed to install: ${err.message}`);
  }
}
process.exit(failed ? 1 : 0);
