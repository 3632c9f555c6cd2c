#!/usr/bin/env node
// What `npx culture` costs a new user: every workspace package published to a local registry
// (scripts/local-registry.mjs; culture's own packages from this build, the rest proxied from
// npmjs and cached in ~/.cache/culture/registry-test), then in a fresh HOME and an empty folder:
// the size and file count of what `npx culture@<version>` installs (target: under 15 MB before
// any agent backend is added), and the time of `npx culture --version` from a warm cache
// (median of BENCH_RUNS, default 5). Run after `npm run build`:  node bench/install-size.mjs
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { folderSize, npxInstallDir, runCommand, startWorkspaceRegistry } from "../scripts/local-registry.mjs";

const root = realpathSync(mkdtempSync(join(tmpdir(), "culture-bench-install-")));
const version = JSON.parse(readFileSync(new URL("../packages/cli/package.json", import.meta.url), "utf8")).version;
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const registry = await startWorkspaceRegistry({ workDir: root });
try {
  const home = join(root, "home");
  const empty = join(root, "empty");
  mkdirSync(home);
  mkdirSync(empty);
  const env = { ...registry.env, HOME: home };
  const npx = (args) => runCommand("npx", ["--yes", `culture@${version}`, ...args], { cwd: empty, env });

  let t = performance.now();
  const first = await npx(["--version"]);
  const coldMs = performance.now() - t;
  if (first.code !== 0) throw new Error(`npx culture --version failed:\n${first.stderr}`);
  const modules = join(npxInstallDir(registry.cache), "node_modules");
  const { bytes, files } = folderSize(modules);
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    t = performance.now();
    const warm = await npx(["--version"]);
    times.push(performance.now() - t);
    if (warm.code !== 0) throw new Error(`npx culture --version failed:\n${warm.stderr}`);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)];
  const rows = [
    ["npx culture install size", `${(bytes / 1e6).toFixed(2)} MB, ${bytes} bytes (target < 15 MB)`],
    ["npx culture install files", String(files)],
    ["npx culture --version, first (install from a warm npm cache)", `${coldMs.toFixed(0)} ms`],
    [`npx culture --version, installed (median of ${RUNS})`, `${median.toFixed(0)} ms`],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  process.stdout.write(`culture ${version}, node ${process.version}\n${rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join("\n")}\n`);
} finally {
  await registry.stop();
  rmSync(root, { recursive: true, force: true });
}
