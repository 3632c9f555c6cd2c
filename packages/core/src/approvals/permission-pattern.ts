/**
 * Permission patterns (`permissions.allow`, `permissions.deny`, saved `always` rules):
 * `Name` or `Name(glob)`. One pattern covers every agent: `Name` matches a request whose tool is
 * exactly `Name`, or whose kind is the one `Name` stands for (`Bash` and `shell` -> shell,
 * `Edit`/`Write` -> edit, `Read` -> read, `WebFetch`/`fetch` -> fetch, `mcp` -> mcp), so
 * `Bash(npm test*)` also covers Codex's `exec_command` and an ACP agent's `execute` tool.
 *
 * The glob is matched against what the request is about: every path (its real path, symlinks
 * and `..` resolved, relative to the agent's real directory; a glob starting with `/` or `~/`
 * names absolute real paths instead) for edit and read, the URL for fetch, the IRC target
 * (lower-cased) for `IrcSend`, and the tool's own name for mcp and other tools. In URLs `*`
 * matches anything; in paths `*` stays inside one folder and `**` crosses folders. `?` is one
 * character, `{a,b}` either alternative, and `\` makes the next character literal (saved rules
 * escape what they copy). Shell commands are parsed and matched word by word on what runs
 * (shell-pattern.ts, shell-policy.ts), not with this glob.
 */
import { exactRequestRule, exactRuleError, isExactRule, matchesExactRule, parseExactRule, type ExactRequest } from "./exact-request.js";
import type { PermissionKind, PermissionRequest } from "./permission-request.js";
import { shellExactPattern, shellPatternCovers, type PatternRole } from "./shell-policy.js";
import { isAbsoluteGlob, pathSubjects, realGlobBase, subjectText } from "./real-path.js";

/** Pattern names that stand for a kind of request (compared case-insensitively). */
export const KIND_ALIASES: Readonly<Record<string, PermissionKind>> = Object.freeze({
  bash: "shell",
  shell: "shell",
  edit: "edit",
  write: "edit",
  read: "read",
  webfetch: "fetch",
  fetch: "fetch",
  mcp: "mcp",
  ircsend: "irc",
});

/** A parsed pattern. */
export interface PermissionPattern {
  /** The pattern as written. */
  source: string;
  name: string;
  /** The glob between the parentheses, or null for a bare name (matches every request of that tool). */
  glob: string | null;
  /** Set for an exact-request rule (`=kind:tool {input}`, exact-request.ts): it matches that one request only. */
  exact?: ExactRequest;
}

const PATTERN = /^([A-Za-z0-9_.:-]+)(?:\((.*)\))?$/s;

/** Why `source` is not a valid pattern, or null when it is. */
export function patternError(source: string): string | null {
  if (isExactRule(source)) return exactRuleError(source);
  if (source.trim() !== source) return "has leading or trailing spaces";
  if (/[\r\n\0]/.test(source)) return "contains a line break or NUL";
  const m = PATTERN.exec(source);
  if (!m) {
    if (!/^[A-Za-z0-9_.:-]/.test(source)) return "must start with a tool name, e.g. Bash or Bash(npm test*)";
    if (source.includes("(") && !source.endsWith(")")) return "has a ( without the closing ) at the end";
    return "must be a tool name (letters, digits, _ . : -) optionally followed by (glob), e.g. Bash(npm test*)";
  }
  const glob = m[2];
  if (glob === undefined) return null;
  if (glob.trim() === "") return `has an empty glob: write ${m[1]} to match every ${m[1]} request`;
  if (glob.endsWith("\\") && !glob.endsWith("\\\\")) return "ends its glob with a lone \\";
  let depth = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "\\") i++;
    else if (c === "{") depth++;
    else if (c === "}" && --depth < 0) return "has a } without a {";
  }
  if (depth !== 0) return "has a { without a }";
  return null;
}

/** Parses a pattern; throws when it is invalid (config validation reports those first). */
export function parsePattern(source: string): PermissionPattern {
  const error = patternError(source);
  if (error) throw new Error(`invalid permission pattern "${source}": ${error}`);
  if (isExactRule(source)) {
    const exact = parseExactRule(source);
    return { source, name: exact.tool, glob: null, exact };
  }
  const m = PATTERN.exec(source)!;
  return { source, name: m[1]!, glob: m[2] ?? null };
}

/**
 * True when `pattern` covers `request` (paths are taken relative to `directory`). Shell commands
 * are matched on the parsed command, differently for allowing and denying (shell-pattern.ts).
 */
export function matchesPattern(pattern: PermissionPattern, request: PermissionRequest, directory: string, role: PatternRole = "allow"): boolean {
  if (pattern.exact) return matchesExactRule(pattern.exact, request);
  if (!patternNamesRequest(pattern, request)) return false;
  if (request.kind === "shell" && request.command !== undefined) return shellPatternCovers(pattern.glob, request.command, role);
  if (pattern.glob === null) return true;
  if (request.kind === "edit" || request.kind === "read") return matchesPaths(pattern.glob, request.paths, directory);
  const subjects = patternSubjects(request, directory);
  if (subjects === null || subjects.length === 0) return false;
  // IRC targets are case-insensitive: `IrcSend(#Dev)` covers #dev (subjects are lower-cased).
  const re = globToRegExp(request.kind === "irc" ? pattern.glob.toLowerCase() : pattern.glob, globMode(request.kind));
  return subjects.every((s) => re.test(s));
}

/** True when the pattern names the request: by its kind when the name stands for one (`Bash` for shell), else by its tool. */
export function patternNamesRequest(pattern: PermissionPattern, request: PermissionRequest): boolean {
  // A name that stands for a kind matches on the kind only: a tool name can come from the model
  // (an ACP title), and a kind-`other` request titled `Read` is not a read (issue #24).
  const alias = KIND_ALIASES[pattern.name.toLowerCase()];
  return alias !== undefined ? alias === request.kind : pattern.name === request.tool;
}

/**
 * What a pattern's glob is matched against: the command, the paths (real paths, relative to
 * `directory` inside it and absolute outside), the URL, or the tool name. Null when the request lacks it.
 */
export function patternSubjects(request: PermissionRequest, directory: string): string[] | null {
  switch (request.kind) {
    case "shell":
      return request.command === undefined ? null : [request.command];
    case "edit":
    case "read":
      return request.paths === undefined ? null : request.paths.flatMap((p) => pathSubjects(p, directory).map(subjectText));
    case "fetch":
      return request.url === undefined ? null : [request.url];
    case "irc":
      return request.target === undefined ? null : [request.target.toLowerCase()];
    default:
      return [request.tool];
  }
}

/**
 * The pattern an `always` answer saves: the request's tool with its exact argument, escaped so
 * it matches only that (`Bash(npm publish --tag next)`, `Edit({src/a.ts,src/b.ts})`), or for an
 * MCP or `other` request the exact-request rule of its kind, tool and input (exact-request.ts).
 * Null when no pattern can say exactly this request (a multi-line command, a request without
 * structured input): saving the bare tool name or kind would allow far more than the operator saw.
 */
export function exactPattern(request: PermissionRequest, directory: string): string | null {
  const name = /^[A-Za-z0-9_.:-]+$/.test(request.tool) ? request.tool : request.kind;
  if (request.kind === "mcp" || request.kind === "other") return exactRequestRule(request);
  if (request.kind === "shell" && request.command !== undefined) return shellExactPattern(name, request.command);
  const subjects = patternSubjects(request, directory);
  if (!subjects || subjects.length === 0) return exactRequestRule(request);
  if (subjects.some((s) => /[\r\n\0]/.test(s))) return null;
  const unique = [...new Set(subjects)].map(escapeGlob);
  return `${name}(${unique.length === 1 ? unique[0] : `{${unique.join(",")}}`})`;
}

/** Escapes glob syntax so `text` matches only itself. */
export function escapeGlob(text: string): string {
  return text.replace(/[\\*?{},]/g, "\\$&");
}

/** How wildcards behave: in paths `*` stops at `/`; in commands at shell control syntax; in text nowhere. */
export type GlobMode = "path" | "command" | "text";

/** One character a command wildcard may cover: not `;`, `&`, `|`, a backquote, `>`, a line break, nor the `$` of `$(`. */
const COMMAND_CHAR = "(?:(?!\\$\\()[^;&|`>\\r\\n])";

/** Compiles a glob (see the module comment for what wildcards cover in each mode). */
export function globToRegExp(glob: string, mode: GlobMode): RegExp {
  const paths = mode === "path";
  const any = mode === "command" ? COMMAND_CHAR : mode === "path" ? "[^/]" : ".";
  let re = "";
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "\\" && i + 1 < glob.length) re += escapeRegExp(glob[++i]!);
    else if (c === "*") {
      if (glob[i + 1] === "*") {
        i++;
        // `src/**/x` also matches `src/x`.
        if (paths && glob[i + 1] === "/") {
          i++;
          re += "(?:.*/)?";
        } else re += mode === "command" ? `${COMMAND_CHAR}*` : ".*";
      } else re += `${any}*`;
    } else if (c === "?") re += any;
    else if (c === "{") {
      braces++;
      re += "(?:";
    } else if (c === "}" && braces > 0) {
      braces--;
      re += ")";
    } else if (c === "," && braces > 0) re += "|";
    else re += escapeRegExp(c);
  }
  return new RegExp(`^${re}$`, "s");
}

function globMode(kind: PermissionKind): GlobMode {
  return kind === "edit" || kind === "read" ? "path" : kind === "shell" ? "command" : "text";
}

/**
 * A path glob against a request's paths, on real paths (real-path.ts): every path, and every
 * real location each may take, must match. A relative glob covers only paths really inside the
 * agent's directory (so `**` never reaches outside it); an absolute one (`/srv/x/**`, `~/x`)
 * only the absolute real path.
 */
function matchesPaths(glob: string, paths: readonly string[] | undefined, directory: string): boolean {
  if (paths === undefined || paths.length === 0) return false;
  const absolute = isAbsoluteGlob(glob);
  const re = globToRegExp(absolute ? realGlobBase(glob) : glob, "path");
  return paths.every((p) =>
    pathSubjects(p, directory).every((s) => {
      const subject = absolute ? s.absolute : s.relative;
      return subject !== null && re.test(subject);
    }),
  );
}

function escapeRegExp(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
