/**
 * Protected paths (issue #24): the places an agent must never reach on an allow pattern or a
 * saved `always` rule, because what is there is a secret (culture's credentials and state, SSH
 * and cloud keys, the agent CLIs' own credentials, other agents' directories) or because
 * writing there is running code (an agent's hooks and MCP server lists, git hooks and config).
 * A request touching one is asked (mode ask) or denied (`permissions.protected: deny`, and in
 * mode allowlist); `always` on it approves once and saves nothing.
 *
 * Everything is compared on real paths ({@link realPath}): a symlink in the project that leads
 * to `~/.ssh/id_rsa` is `~/.ssh/id_rsa`, and so is `~/.ssh` reached through a dotfiles symlink.
 * A read of a folder that holds a protected path (a search of `~` or `/`) touches it too.
 */
import { statSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import type { AgentConfig, CultureConfig } from "../config/schema.js";
import type { CompiledPolicy, PolicyVerdict } from "./permission-policy.js";
import { cultureHome } from "../paths.js";
import type { PermissionRequest } from "./permission-request.js";
import { isWithin, pathSubjects, realPath, realPathCandidates, subjectText } from "./real-path.js";
import { plainArgv } from "./shell-command.js";
import { protectedShellArgument } from "./shell-path-arguments.js";

/** How a path is used: read, written, or either (a shell argument, where culture cannot tell). */
export type PathAccess = "read" | "write" | "any";

/** One protected place. */
export interface ProtectedEntry {
  /** Absolute (before resolving symlinks, which happens at each check). */
  path: string;
  /** What it is, for the operator: `SSH keys`, `culture credentials`. */
  why: string;
}

/** A request or argument that touches a protected path. */
export interface ProtectedHit {
  /** The real path that is protected (or the folder read that holds it). */
  path: string;
  /** What is there. */
  why: string;
  /** The path as the request named it. */
  requested: string;
}

/** What {@link ProtectedPaths} is built from. */
export interface ProtectedPathsOptions {
  /** The agent's own directory (absolute). */
  directory: string;
  /** The OS user's home folder. */
  home: string;
  /** `$CULTURE_HOME`. */
  cultureHome: string;
  /** The config file the agent was started from, or null. */
  configFile: string | null;
  /** The directories of the config's other agents (absolute). */
  otherAgentDirectories: readonly string[];
  /** `permissions.protected_paths`: more paths (absolute, `~/...`, or relative to the agent's directory). */
  extra: readonly string[];
  /** The environment the agent runs with (CLAUDE_CONFIG_DIR, CODEX_HOME, ...). */
  env: NodeJS.ProcessEnv;
}

/**
 * Files whose contents run code when an agent (or git) starts in the folder that holds them, as
 * path endings: writing one is code execution, so writes ask. Reading them is not protected
 * (agents read their project's settings all the time).
 */
const CODE_CONFIG_ENDINGS: ReadonlyArray<{ ending: string[]; why: string }> = [
  { ending: [".claude", "settings.json"], why: "Claude Code settings (hooks run commands)" },
  { ending: [".claude", "settings.local.json"], why: "Claude Code settings (hooks run commands)" },
  { ending: [".claude.json"], why: "Claude Code state and MCP servers" },
  { ending: [".mcp.json"], why: "MCP server list (each server is a command)" },
  { ending: [".gemini", "settings.json"], why: "Gemini CLI settings (hooks and MCP servers)" },
  { ending: [".vscode", "mcp.json"], why: "MCP server list (each server is a command)" },
  { ending: ["opencode.json"], why: "opencode config (MCP servers, plugins)" },
  { ending: ["opencode.jsonc"], why: "opencode config (MCP servers, plugins)" },
  { ending: [".copilot", "mcp-config.json"], why: "Copilot MCP server list" },
];
/** Folders in which every file is such a config. */
const CODE_CONFIG_FOLDERS: ReadonlyArray<{ name: string; why: string }> = [
  { name: ".codex", why: "Codex config (MCP servers, hooks)" },
  { name: ".opencode", why: "opencode config (plugins run code)" },
];
/** Folders that hold such configs: naming one as a shell argument (`cp -r x .git`) asks too. */
const CODE_CONFIG_CONTAINERS = new Set([".git", ".claude", ".gemini", ".vscode", ".codex", ".opencode", ".copilot"]);

/** The protected places of one agent. Cheap to build; each check resolves symlinks afresh. */
export class ProtectedPaths {
  /** The protected places (secrets: reading and writing them asks), as configured. */
  readonly entries: readonly ProtectedEntry[];

  constructor(private readonly o: ProtectedPathsOptions) {
    this.entries = secretEntries(o);
  }

  /** The agent's directory. */
  get directory(): string {
    return this.o.directory;
  }

  /**
   * The protected path `path` (absolute, or relative to `base`, default the agent's
   * directory) touches when used for `access`, or null. Checks every real location the path
   * may take ({@link realPathCandidates}).
   */
  check(path: string, access: PathAccess, base: string = this.o.directory): ProtectedHit | null {
    for (const real of realPathCandidates(path, base, this.o.home)) {
      const hit = this.checkReal(real, access);
      if (hit) return { ...hit, requested: path };
    }
    return null;
  }

  /**
   * The first protected path a request touches, or null: its paths (reads for `read`, writes
   * for `edit`, either for other kinds), and for a plain shell command every argument that may
   * be a path ({@link protectedShellArgument}). A command that is not plain is never covered by
   * an allow pattern anyway, so its words need no guess here.
   */
  request(request: Pick<PermissionRequest, "kind" | "paths" | "command">): ProtectedHit | null {
    const access: PathAccess = request.kind === "read" ? "read" : request.kind === "edit" ? "write" : "any";
    for (const p of request.paths ?? []) {
      const hit = this.check(p, access);
      if (hit) return hit;
    }
    if (request.kind === "shell" && request.command !== undefined) {
      const argv = plainArgv(request.command);
      if (argv) return protectedShellArgument(argv, this.o.directory, this, this.o.home);
    }
    return null;
  }

  private checkReal(real: string, access: PathAccess): Omit<ProtectedHit, "requested"> | null {
    const own = realPath(this.o.directory, this.o.directory);
    for (const entry of this.entries) {
      const target = realPath(entry.path, "/");
      // Other agents' directories: what overlaps this agent's own directory is its own.
      const isOtherAgent = entry.why === OTHER_AGENT;
      if (isWithin(real, target) && !(isOtherAgent && isWithin(real, own))) return { path: target, why: entry.why };
      // A folder that holds a protected place: reading it (a search, a listing) reaches it.
      if (isWithin(target, real) && !(isOtherAgent && isWithin(target, own)) && isDirectory(real)) return { path: target, why: entry.why };
    }
    if (access === "read") return null;
    const parts = real.split(sep).filter((s) => s !== "");
    const config = codeConfig(parts, access === "any");
    return config ? { path: real, why: config } : null;
  }
}

/**
 * What a request touching a protected path gets, whatever `allow` and the saved rules say:
 * `permissions.protected: deny` denies it in every mode; otherwise mode ask asks (an `always`
 * answer then approves once), mode allowlist denies (nobody is there to ask), and mode bypass
 * allows it: there the agent already runs any command as its owner, so refusing its file
 * tools would only pretend (the OS sandbox is the boundary; docs/approvals.md).
 */
export function protectedVerdict(policy: Pick<CompiledPolicy, "mode" | "protectedAction">, hit: ProtectedHit): PolicyVerdict {
  const what = `${hit.requested} is a protected path (${hit.why}${hit.path !== hit.requested ? `: ${hit.path}` : ""})`;
  if (policy.protectedAction === "deny") return { action: "deny", pattern: null, reason: `${what}; permissions.protected is deny` };
  if (policy.mode === "ask") return { action: "ask", protected: hit };
  if (policy.mode === "allowlist") return { action: "deny", pattern: null, reason: `${what}; permissions.mode is allowlist, so no operator can be asked` };
  return { action: "allow", pattern: null, source: "bypass" };
}

/** What an `always` answer on a protected request says instead of saving a rule. */
export function protectedNote(hit: ProtectedHit): string {
  return `${hit.requested} is a protected path (${hit.why}), and always saves no rule for it`;
}

/**
 * For the operator: where a request's paths really lead when that is not what their text says
 * (` [real path: outside/secret.txt]` for `src/leak.txt`), or "". Paths inside the agent's
 * directory are shown relative to it, others absolute.
 */
export function realPathNote(request: Pick<PermissionRequest, "kind" | "paths">, directory: string): string {
  if (!request.paths?.length) return "";
  const base = resolve(directory);
  const notes = new Set<string>();
  for (const p of request.paths) {
    const lexical = resolve(base, p);
    const said = isWithin(lexical, base) ? relative(base, lexical) || "." : lexical;
    for (const s of pathSubjects(p, directory)) if (subjectText(s) !== said) notes.add(subjectText(s));
  }
  return notes.size ? ` [real path: ${[...notes].join(", ")}]` : "";
}

/** Builds an agent's {@link ProtectedPaths} from its loaded config and the environment it runs with. */
export function protectedPathsFor(config: Pick<CultureConfig, "agents" | "filepath">, agent: Pick<AgentConfig, "nick" | "directory">, extra: readonly string[], env: NodeJS.ProcessEnv = process.env): ProtectedPaths {
  return new ProtectedPaths({
    directory: agent.directory,
    home: env.HOME && isAbsolute(env.HOME) ? env.HOME : homedir(),
    cultureHome: cultureHome(env),
    configFile: config.filepath,
    otherAgentDirectories: config.agents.filter((a) => a.nick !== agent.nick).map((a) => a.directory),
    extra,
    env,
  });
}

const OTHER_AGENT = "another agent's directory";

function secretEntries(o: ProtectedPathsOptions): ProtectedEntry[] {
  const homes = [...new Set([o.home, homedir()])];
  const out: ProtectedEntry[] = [];
  const add = (path: string, why: string) => out.push({ path, why });
  for (const name of ["credentials", "state", "server", "logs"]) add(join(o.cultureHome, name), `culture ${name === "logs" ? "logs (every prompt and DM)" : name}`);
  add(join(o.cultureHome, "backends"), "culture backends (code the daemon loads)");
  if (o.configFile) add(o.configFile, "culture config");
  for (const home of homes) {
    add(join(home, ".ssh"), "SSH keys");
    add(join(home, ".aws"), "AWS credentials");
    add(join(home, ".config", "gh"), "GitHub CLI credentials");
    add(join(home, ".gnupg"), "GnuPG keys");
    add(join(home, ".netrc"), "netrc passwords");
    add(join(home, ".docker", "config.json"), "Docker registry credentials");
    add(join(home, ".kube"), "Kubernetes credentials");
    add(join(home, ".claude", ".credentials.json"), "Claude Code credentials");
    add(join(home, ".claude.json"), "Claude Code account and MCP servers");
    add(join(home, ".codex", "auth.json"), "Codex credentials");
    for (const f of ["oauth_creds.json", "google_accounts.json", "gemini-credentials.json", "mcp-oauth-tokens.json"]) add(join(home, ".gemini", f), "Gemini CLI credentials");
    for (const f of ["auth.json", "mcp-auth.json"]) add(join(home, ".local", "share", "opencode", f), "opencode credentials");
    add(join(home, ".copilot", "config.json"), "GitHub Copilot CLI credentials");
    add(join(home, ".config", "github-copilot"), "GitHub Copilot tokens");
  }
  const env = o.env;
  if (env.CLAUDE_CONFIG_DIR) {
    add(join(env.CLAUDE_CONFIG_DIR, ".credentials.json"), "Claude Code credentials");
    add(join(env.CLAUDE_CONFIG_DIR, ".claude.json"), "Claude Code account and MCP servers");
  }
  if (env.CODEX_HOME) add(join(env.CODEX_HOME, "auth.json"), "Codex credentials");
  if (env.COPILOT_HOME) add(join(env.COPILOT_HOME, "config.json"), "GitHub Copilot CLI credentials");
  if (env.XDG_DATA_HOME) for (const f of ["auth.json", "mcp-auth.json"]) add(join(env.XDG_DATA_HOME, "opencode", f), "opencode credentials");
  if (env.XDG_CONFIG_HOME) add(join(env.XDG_CONFIG_HOME, "gh"), "GitHub CLI credentials");
  if (env.GH_CONFIG_DIR) add(env.GH_CONFIG_DIR, "GitHub CLI credentials");
  const own = realPath(o.directory, o.directory);
  for (const dir of o.otherAgentDirectories) {
    // A directory shared with this agent (or holding it) is not "other".
    if (isWithin(own, realPath(dir, dir))) continue;
    add(dir, OTHER_AGENT);
  }
  for (const p of o.extra) add(p === "~" || p.startsWith("~/") ? join(o.home, p.slice(1)) : isAbsolute(p) ? p : join(o.directory, p), "listed in permissions.protected_paths");
  return out;
}

/** Why writing the path with these segments runs code, or null. */
function codeConfig(parts: string[], container: boolean): string | null {
  const git = parts.lastIndexOf(".git");
  if (git >= 0) {
    const rest = parts.slice(git + 1);
    if (rest.length === 0) return container ? "git repository (hooks and config run commands)" : "git repository link (.git)";
    if (rest.includes("hooks")) return "git hooks (run on commit, checkout, ...)";
    const last = rest.at(-1)!;
    if (last === "config" || last === "config.worktree") return "git config (aliases, hooksPath, fsmonitor run commands)";
  }
  for (const { ending, why } of CODE_CONFIG_ENDINGS) {
    if (parts.length >= ending.length && ending.every((e, i) => parts[parts.length - ending.length + i] === e)) return why;
  }
  for (const { name, why } of CODE_CONFIG_FOLDERS) if (parts.includes(name)) return why;
  if (container && parts.length > 0 && CODE_CONFIG_CONTAINERS.has(parts.at(-1)!)) return `${parts.at(-1)} folder (agent or git config that runs commands)`;
  return null;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
