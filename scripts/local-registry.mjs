/**
 * A local npm registry with every workspace package published to it, as a user's machine would
 * meet culture: verdaccio serving `culture` and `@culture/*` from its own storage (published by
 * scripts/release.mjs) and proxying everything else from the public registry.
 *
 * Used by the registry tests (packages/cli/test/*.registry.test.ts) and bench/install-size.mjs.
 * Download cost is kept down by a persistent cache, `$CULTURE_REGISTRY_CACHE` (default
 * `~/.cache/culture/registry-test`): verdaccio's storage of proxied packages and npm's cache
 * survive between runs; culture's own packages and npx's installs are wiped at every start so a
 * run never sees a previous build.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const VERDACCIO = join(ROOT, "node_modules", "verdaccio", "bin", "verdaccio");
const NPM = process.platform === "win32" ? "npm.cmd" : "npm";

/** The persistent cache folder (verdaccio's proxied packages, npm's cache). */
export function registryCacheDir(env = process.env) {
  return env.CULTURE_REGISTRY_CACHE || join(homedir(), ".cache", "culture", "registry-test");
}

/**
 * The parent's environment without npm's, vitest's and culture's own variables: `npx vitest`
 * exports npm_config_* (cache, prefix, userconfig...) that would override the npmrc given here,
 * and a nested vitest must not think it is a worker of this one.
 */
export function cleanEnv(source = process.env) {
  const out = {};
  for (const [key, value] of Object.entries(source)) {
    if (/^(npm_|vitest|INIT_CWD$|CULTURE_|FORCE_COLOR$)/i.test(key)) continue;
    out[key] = value;
  }
  out.NO_COLOR = "1";
  return out;
}

/** Runs a command and collects its output; never rejects. */
export function runCommand(command, args, { cwd, env, timeoutMs = 240_000 } = {}) {
  return new Promise((done) => {
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d.toString()));
    child.stderr.on("data", (d) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("error", (err) => {
      clearTimeout(timer);
      done({ code: null, stdout, stderr: `${stderr}\n${err.message}` });
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/**
 * Starts verdaccio. `storage` is its package storage; with `uplink` (default true) it proxies
 * every package but `culture` and `@culture/*` from https://registry.npmjs.org/.
 * Returns { url, npmrc(path, extra), stop(), log() }.
 */
export async function startVerdaccio({ dir, storage = join(dir, "storage"), uplink = true }) {
  mkdirSync(storage, { recursive: true });
  mkdirSync(dir, { recursive: true });
  const config = join(dir, "config.yaml");
  const own = `access: $all, publish: $all`;
  writeFileSync(
    config,
    [
      `storage: ${storage}`,
      `auth: { htpasswd: { file: ${join(dir, "htpasswd")} } }`,
      uplink ? `uplinks: { npmjs: { url: "https://registry.npmjs.org/", timeout: 60s, maxage: 30m } }` : `uplinks: {}`,
      `packages:`,
      `  "culture": { ${own} }`,
      `  "@culture/*": { ${own} }`,
      `  "**": { ${own}${uplink ? ", proxy: npmjs" : ""} }`,
      `log: { type: stdout, level: warn }`,
      "",
    ].join("\n"),
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  let log = "";
  const child = spawn(process.execPath, [VERDACCIO, "--config", config, "--listen", `127.0.0.1:${port}`], {
    env: cleanEnv(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout.on("data", (d) => (log += d.toString()));
  child.stderr.on("data", (d) => (log += d.toString()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once("exit", () => r()));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(timer);
  };
  for (let attempt = 0; attempt < 300; attempt++) {
    if (child.exitCode !== null) break;
    const ok = await fetch(`${url}-/ping`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { url, stop, log: () => log };
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error(`verdaccio (${VERDACCIO}) did not answer on ${url}-/ping (exit code ${child.exitCode}). Its output:\n${log}`);
}

/** Writes an npmrc that sends every package to `registry`, with a dummy token and the given cache. */
export function writeNpmrc(path, { registry, cache, extra = [] }) {
  const host = registry.replace(/^https?:/, "");
  writeFileSync(
    path,
    [`registry=${registry}`, `${host}:_authToken=dummy`, `cache=${cache}`, "fund=false", "audit=false", "update-notifier=false", ...extra, ""].join("\n"),
  );
}

/**
 * A registry with the whole workspace published (run `npm run build` first): verdaccio on the
 * persistent cache (culture's own packages removed first), an npmrc, and
 * `node scripts/release.mjs --no-version --no-build`.
 * Returns { url, npmrc, cache, env, stop, log }: `env` is a clean environment using the npmrc.
 */
export async function startWorkspaceRegistry({ workDir }) {
  const cacheRoot = registryCacheDir();
  const storage = join(cacheRoot, "verdaccio-storage");
  const cache = join(cacheRoot, "npm-cache");
  // Culture's own packages (and verdaccio's list of local packages) from a previous run go;
  // npx's installs go too: `npx culture@0.1.0` must install this build, not reuse the last one.
  for (const stale of ["culture", "@culture", ".verdaccio-db.json", ".sinopia-db.json"]) rmSync(join(storage, stale), { recursive: true, force: true });
  rmSync(join(cache, "_npx"), { recursive: true, force: true });
  mkdirSync(cache, { recursive: true });
  const registry = await startVerdaccio({ dir: join(workDir, "verdaccio"), storage });
  const npmrc = join(workDir, "npmrc");
  writeNpmrc(npmrc, { registry: registry.url, cache });
  const env = { ...cleanEnv(), npm_config_userconfig: npmrc };
  const published = await runCommand(process.execPath, [join(ROOT, "scripts", "release.mjs"), "--no-version", "--no-build", "--registry", registry.url], {
    cwd: ROOT,
    env,
  });
  if (published.code !== 0) {
    await registry.stop();
    throw new Error(`publishing the workspace to ${registry.url} failed (exit ${published.code}):\n${published.stdout.slice(-3000)}\n${published.stderr.slice(-5000)}`);
  }
  return { ...registry, npmrc, cache, env };
}

/** Bytes and files under a folder (symlinks not followed). */
export function folderSize(dir) {
  let bytes = 0;
  let files = 0;
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) {
        files++;
        bytes += statSync(path).size;
      }
    }
  };
  if (existsSync(dir)) walk(dir);
  return { bytes, files };
}

/** The folder npx installed a package into (`<cache>/_npx/<hash>`), the newest one. */
export function npxInstallDir(cache) {
  const root = join(cache, "_npx");
  if (!existsSync(root)) return null;
  const dirs = readdirSync(root)
    .map((name) => join(root, name))
    .filter((d) => existsSync(join(d, "node_modules")))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  return dirs[0] ?? null;
}

export { NPM };
