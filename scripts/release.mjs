#!/usr/bin/env node
/**
 * Releases the workspace: versions it with changesets, builds it, and publishes every public
 * package to a registry in dependency order (core before the server, backends and the CLI that
 * need it), skipping versions the registry already has, so a failed release can be re-run.
 *
 *   node scripts/release.mjs --registry http://127.0.0.1:4873/   # version, build, publish
 *   node scripts/release.mjs --no-version --registry <url>       # publish the versions as they are
 *   node scripts/release.mjs --dry-run                           # npm publish --dry-run
 *
 * Versions: `changeset version` applies the pending changesets in .changeset/ (every package is
 * in one fixed group, so all share one version). Describe a change with `npx changeset`.
 * Without --registry, npm's configured registry is used. Auth is npm's (an npmrc token).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const NPM = process.platform === "win32" ? "npm.cmd" : "npm";

/** The workspace's packages: { name, version, dir, private, internal deps }. */
export function workspacePackages(root = ROOT) {
  const names = readdirSync(join(root, "packages")).filter((d) => existsSync(join(root, "packages", d, "package.json")));
  const manifests = names.map((d) => ({ dir: join(root, "packages", d), manifest: JSON.parse(readFileSync(join(root, "packages", d, "package.json"), "utf8")) }));
  const ours = new Set(manifests.map((m) => m.manifest.name));
  return manifests.map(({ dir, manifest }) => ({
    name: manifest.name,
    version: manifest.version,
    dir,
    private: manifest.private === true,
    // What must be on the registry first: runtime, peer and optional dependencies inside the workspace.
    needs: Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies, ...manifest.optionalDependencies }).filter((n) => ours.has(n)),
  }));
}

/** The public packages, each after every package it needs (throws on a cycle). */
export function publishOrder(packages = workspacePackages()) {
  const byName = new Map(packages.map((p) => [p.name, p]));
  const done = new Set();
  const visiting = new Set();
  const order = [];
  const visit = (pkg) => {
    if (done.has(pkg.name)) return;
    if (visiting.has(pkg.name)) throw new Error(`dependency cycle through ${pkg.name}`);
    visiting.add(pkg.name);
    for (const need of pkg.needs) visit(byName.get(need));
    visiting.delete(pkg.name);
    done.add(pkg.name);
    order.push(pkg);
  };
  for (const pkg of [...packages].sort((a, b) => a.name.localeCompare(b.name))) visit(pkg);
  return order.filter((p) => !p.private);
}

function run(cmd, args, options = {}) {
  process.stderr.write(`$ ${cmd} ${args.join(" ")}\n`);
  execFileSync(cmd, args, { stdio: "inherit", cwd: ROOT, ...options });
}

/** True when the registry already has this exact version. */
function published(pkg, registryArgs) {
  const r = spawnSync(NPM, ["view", `${pkg.name}@${pkg.version}`, "version", ...registryArgs], { cwd: ROOT, encoding: "utf8" });
  return r.status === 0 && r.stdout.trim() === pkg.version;
}

async function main(argv) {
  const arg = (name) => {
    const i = argv.indexOf(name);
    return i === -1 ? undefined : argv[i + 1];
  };
  const registry = arg("--registry");
  const tag = arg("--tag");
  const dryRun = argv.includes("--dry-run");
  const registryArgs = registry ? ["--registry", registry] : [];
  if (!argv.includes("--no-version")) {
    run(process.execPath, [join(ROOT, "node_modules", "@changesets", "cli", "bin.js"), "version"]);
    run(NPM, ["install", "--package-lock-only", "--omit=optional", "--ignore-scripts"]);
  }
  if (!argv.includes("--no-build")) {
    // A clean build: the builds keep stale chunks in dist/ (no clean, for parallel test runs), and those would be published.
    for (const pkg of workspacePackages()) rmSync(join(pkg.dir, "dist"), { recursive: true, force: true });
    run(NPM, ["run", "build"]);
  }
  for (const pkg of publishOrder()) {
    if (!dryRun && published(pkg, registryArgs)) {
      process.stderr.write(`${pkg.name}@${pkg.version} is already published: skipped\n`);
      continue;
    }
    run(NPM, ["publish", ...registryArgs, ...(tag ? ["--tag", tag] : []), ...(dryRun ? ["--dry-run"] : [])], { cwd: pkg.dir });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main(process.argv.slice(2)).catch((err) => {
    process.stderr.write(`release failed: ${err.message}\n`);
    process.exitCode = 1;
  });
}
