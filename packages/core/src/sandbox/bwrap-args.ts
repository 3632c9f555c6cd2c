/**
 * `sandbox: bwrap`: the agent in a bubblewrap box. The system is read-only (`/` bound
 * read-only), the home folder(s), culture's home, the runtime dir, /home and /tmp are hidden
 * behind empty tmpfs mounts, and only what the agent needs is bound back: its directory and its
 * CLI's own folders read-write, the install folders of the agent CLI, node and culture
 * read-only, and the daemon's IRC-tools socket (nothing else of culture's: the control socket
 * and token stay outside). Protected paths (approvals/protected-paths.ts) that any of that
 * would show are covered last (an empty tmpfs for a folder, /dev/null for a file, which a
 * sandboxed process cannot open), and so is the runtime dir with the other agents' sockets.
 * The box has its own pid, ipc, uts and user namespaces, a private /tmp, no capabilities, no
 * controlling terminal (`--new-session`), dies with the daemon, and with `network: off` its own
 * empty network namespace.
 *
 * Order matters: bwrap applies mounts in order, so: hide, bind back (shallow first), cover.
 */
import { mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, normalize, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { isWithin, realPath } from "../approvals/real-path.js";
import { cultureHome, runtimeDir } from "../paths.js";
import { configuredPaths } from "./configured-paths.js";
import { installRoot, isDirectoryPath, safeRealpath, whichSync } from "./program-paths.js";
import type { SandboxConfig } from "./sandbox-config.js";
import type { SandboxContext, SandboxedCommand } from "./sandbox-command.js";
import { sandboxUnavailable } from "./sandbox-errors.js";

/** How to install bubblewrap, per distribution family (shown by errors and `culture doctor`). */
export const BWRAP_INSTALL = "Install bubblewrap: sudo apt-get install bubblewrap (Debian, Ubuntu); sudo dnf install bubblewrap (Fedora); sudo pacman -S bubblewrap (Arch).";

/** Where bwrap is looked for when the agent's PATH has none. */
const SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** This file: culture's own install folder is found from it. */
const SELF = fileURLToPath(import.meta.url);

/** One mount of the plan. */
interface Bind {
  source: string;
  target: string;
  access: "ro" | "rw";
}

/** The bwrap program for an environment, or null when it is not installed. */
export function findBwrap(env: Record<string, string | undefined>): string | null {
  return whichSync("bwrap", env.PATH, "/") ?? whichSync("bwrap", SYSTEM_PATH, "/");
}

/** See the module comment. Throws E_SANDBOX_UNAVAILABLE without bwrap, E_SANDBOX_PATH for a refused configured path. */
export function bwrapCommand(spec: SandboxConfig, argv: readonly string[], ctx: SandboxContext): SandboxedCommand {
  const env = ctx.env;
  const cwd = ctx.cwd ?? ctx.directory;
  const bwrap = findBwrap(env);
  if (!bwrap) throw sandboxUnavailable("bwrap", "bwrap is not installed (not on PATH)", BWRAP_INSTALL);
  const home = env.HOME && isAbsolute(env.HOME) ? normalize(env.HOME) : homedir();
  const real = (p: string) => safeRealpath(p) ?? normalize(p);

  // 1. What is hidden: every home, culture's home and runtime dir, /home, the temp folders.
  const runtime = runtimeDir(env);
  const hiddenCandidates = [home, homedir(), "/home", "/run/user", cultureHome(env), runtime, "/tmp", "/var/tmp"].map(real);
  const hidden = outermost(hiddenCandidates.filter(isDirectoryPath));
  const isHidden = (p: string) => hidden.some((h) => isWithin(p, h));

  // 2. What is bound back.
  const binds: Bind[] = [];
  const bind = (path: string, access: "ro" | "rw") => {
    const source = real(path);
    for (const target of new Set([normalize(path), source])) binds.push({ source, target, access });
  };
  const configured = configuredPaths(ctx.nick, spec, ctx.directory, home, ctx.protectedPaths);
  const own: string[] = [];
  for (const dir of ctx.agentPaths.dirs) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    own.push(real(dir));
    bind(dir, "rw");
  }
  for (const file of ctx.agentPaths.files ?? []) {
    const r = safeRealpath(file);
    if (r === null) continue;
    own.push(r);
    bind(file, "rw");
  }
  for (const path of ctx.agentPaths.readOnly ?? []) if (safeRealpath(path) !== null) bind(path, "ro");
  // Install folders, read-only, where they are hidden: the agent's program (and the files its
  // argv names), node, culture (the daemon's own install and the `culture` on the agent's PATH).
  // An install root never takes a whole hidden area back: not a home (even one inside another
  // hidden area, like a private HOME under /root), not culture's home or the runtime dir.
  const tooWide = (dir: string) => dir === sep || hiddenCandidates.some((h) => isWithin(h, dir));
  const program = argv[0] === undefined ? null : whichSync(argv[0], env.PATH, cwd);
  const programs = [program, whichSync("culture", env.PATH, cwd), whichSync("node", env.PATH, cwd), process.execPath, SELF];
  for (const arg of argv.slice(1)) if (isAbsolute(arg) && safeRealpath(arg) !== null && !isDirectoryPath(arg)) programs.push(arg);
  for (const file of programs) {
    if (!file) continue;
    for (const dir of [dirname(file), installRoot(file, tooWide)]) if (isHidden(real(dir))) bind(dir, "ro");
  }
  for (const c of configured) bind(c.real, c.access);
  bind(ctx.directory, "rw");
  for (const b of ctx.extra?.binds ?? []) binds.push({ source: real(b.source), target: normalize(b.target ?? b.source), access: b.access ?? "ro" });
  const plan = dedupe(binds).sort((a, b) => depth(a.target) - depth(b.target));

  // 3. What is covered: protected paths the binds (or the read-only system) would show.
  const covers: string[] = [];
  for (const entry of ctx.protectedPaths.entries) {
    const r = safeRealpath(realPath(entry.path, "/"));
    if (r === null || own.some((o) => isWithin(r, o))) continue;
    for (const inside of insideLocations(r, plan, isHidden)) covers.push(inside);
  }
  // The runtime dir holds every agent's tools socket; a bind that shows it (an agent whose
  // directory holds culture's home) must not: cover it, then bind this agent's socket last.
  for (const inside of insideLocations(real(runtime), plan, isHidden)) covers.push(inside);

  const args: string[] = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
  for (const h of hidden) args.push("--tmpfs", h);
  for (const b of plan) args.push(b.access === "rw" ? "--bind" : "--ro-bind", b.source, b.target);
  for (const c of outermost(covers)) {
    if (isDirectoryPath(c)) args.push("--tmpfs", c);
    else args.push("--ro-bind", "/dev/null", c);
  }
  args.push("--ro-bind", real(ctx.toolsSocket), ctx.toolsSocket);
  args.push("--unshare-all");
  if (spec.network === "on") args.push("--share-net");
  args.push("--die-with-parent", "--new-session", "--cap-drop", "ALL", "--chdir", cwd);
  args.push(...(ctx.extra?.args ?? []));

  const out: Record<string, string | undefined> = { ...env };
  // The owner's SSH agent would sign with their keys: its socket is hidden, and so is its name.
  delete out.SSH_AUTH_SOCK;
  if (out.TMPDIR && isHidden(real(out.TMPDIR)) && !plan.some((b) => isWithin(normalize(out.TMPDIR!), b.target))) out.TMPDIR = "/tmp";
  Object.assign(out, ctx.extra?.env ?? {});
  return { argv: [bwrap, ...args, "--", program ?? argv[0] ?? "", ...argv.slice(1)], env: out };
}

/** Where the real path `r` shows inside the box: itself when the system shows it, and under every bind that holds it. */
function insideLocations(r: string, plan: readonly Bind[], isHidden: (p: string) => boolean): string[] {
  const out: string[] = [];
  if (!isHidden(r)) out.push(r);
  for (const b of plan) if (isWithin(r, b.source)) out.push(normalize(`${b.target}${sep}${relative(b.source, r)}`));
  return out;
}

/** The paths that are not inside another one of the list, shallow first, without repeats. */
function outermost(paths: readonly string[]): string[] {
  const sorted = [...new Set(paths)].sort((a, b) => depth(a) - depth(b));
  const out: string[] = [];
  for (const p of sorted) if (!out.some((o) => isWithin(p, o))) out.push(p);
  return out;
}

function dedupe(binds: readonly Bind[]): Bind[] {
  const byTarget = new Map<string, Bind>();
  for (const b of binds) {
    const seen = byTarget.get(b.target);
    // The same place bound twice: read-write wins (the agent's directory over an install root in it).
    if (!seen || (seen.access === "ro" && b.access === "rw")) byTarget.set(b.target, b);
  }
  return [...byTarget.values()];
}

function depth(p: string): number {
  return p.split(sep).filter(Boolean).length;
}
