/**
 * Paths as the file system sees them (issue #24): a permission pattern or a protected path is
 * matched on where a path really leads, never on its text. `src/leak.txt` that is a symlink to
 * `../outside/secret.txt` is `outside/secret.txt`; `src/link/../x` is resolved the way the kernel
 * does (the `..` applies to the symlink's target) and, because a tool may normalise the text
 * first, also the way `path.resolve` does: a request must pass with both.
 *
 * A path that does not exist yet (a file about to be written) is the real path of its deepest
 * existing ancestor plus the rest, so a new file under a symlinked folder is placed where it
 * will really land.
 *
 * This is a check at request time: the agent's process could swap a symlink between the check
 * and the use. Only an OS sandbox closes that window (docs/approvals.md says so).
 */
import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, normalize, relative, resolve, sep } from "node:path";

/**
 * The real location of `path` (absolute, or relative to `base`): symlinks and `..` resolved as
 * the kernel resolves them; for a path that does not exist, the real path of its deepest
 * existing ancestor joined with the rest.
 */
export function realPath(path: string, base: string): string {
  // Not path.resolve: that would drop `link/..` before the symlink is followed.
  const absolute = isAbsolute(path) ? path : `${isAbsolute(base) ? base : resolve(base)}${sep}${path}`;
  const whole = tryRealpath(absolute);
  if (whole !== null) return whole;
  const parts = absolute.split(sep);
  for (let i = parts.length - 1; i >= 1; i--) {
    const real = tryRealpath(parts.slice(0, i).join(sep) || sep);
    if (real !== null) return join(real, ...parts.slice(i));
  }
  return normalize(absolute);
}

/**
 * Every real location a tool may take `path` to: the kernel's reading, the reading of a tool
 * that normalises the text first (`a/link/../b` -> `a/b`), and for a path starting with `~/`
 * also the home folder's (some agents expand it, the file system does not). Distinct, in that
 * order.
 */
export function realPathCandidates(path: string, base: string, home: string = homedir()): string[] {
  const out = new Set<string>([realPath(path, base), realPath(resolve(base, path), base)]);
  if (path === "~" || path.startsWith("~/")) out.add(realPath(join(home, path.slice(1)), base));
  return [...out];
}

/** True when `path` is `folder` or inside it (both absolute and normalised). */
export function isWithin(path: string, folder: string): boolean {
  if (path === folder) return true;
  const rel = relative(folder, path);
  return rel !== "" && !rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel);
}

/**
 * How a pattern sees one real path: relative to the agent's real directory when inside it
 * (`.` for the directory itself), else null; and always absolute.
 */
export interface PathSubject {
  absolute: string;
  relative: string | null;
}

/** The subjects of `path` for matching (one per {@link realPathCandidates} entry). */
export function pathSubjects(path: string, directory: string): PathSubject[] {
  const root = realPath(directory, directory);
  return realPathCandidates(path, directory).map((absolute) => ({
    absolute,
    relative: isWithin(absolute, root) ? relative(root, absolute) || "." : null,
  }));
}

/** The text an `always` rule saves for a subject: the relative path inside the directory, the absolute one outside. */
export function subjectText(subject: PathSubject): string {
  return subject.relative ?? subject.absolute;
}

/**
 * Whether a path glob names absolute locations: it starts with `/` or `~/`. A relative glob
 * (`src/**`, `**`) only ever covers paths inside the agent's directory; an absolute one
 * (`/srv/data/**`, `~/notes/*.md`) only ever covers the absolute real path.
 */
export function isAbsoluteGlob(glob: string): boolean {
  return glob.startsWith("/") || glob === "~" || glob.startsWith("~/");
}

/**
 * An absolute glob as it must be compared with real paths: `~` expanded, and its literal
 * leading folders resolved to their real path (on a system where `/tmp` is a symlink,
 * `Read(/tmp/x/**)` still covers what is really there). Wildcards and escapes are kept.
 */
export function realGlobBase(glob: string, home: string = homedir()): string {
  const expanded = glob === "~" ? home : glob.startsWith("~/") ? `${home}${glob.slice(1)}` : glob;
  const parts = expanded.split("/");
  // The leading run of plain folder names (no wildcard, brace or escape, not the last part).
  let n = 1;
  while (n < parts.length - 1 && /^[^*?{}\\[\]]+$/.test(parts[n]!) && parts[n] !== "." && parts[n] !== "..") n++;
  if (n <= 1) return expanded;
  const base = parts.slice(0, n).join("/");
  const real = realPath(base, "/");
  // The real folder names are literal text in the glob: escape what the glob syntax would read.
  return [real === "/" ? "" : real.replace(/[\\*?{},]/g, "\\$&"), ...parts.slice(n)].join("/");
}

/**
 * The folders a file search reaches: its `path` (default the agent's directory, `.`) and, when
 * its glob pattern itself leaves that folder (absolute, `~/...`, or with a `..` part), the
 * pattern's literal leading folders too (`/etc/*.conf` searches `/etc`). A backend puts these in
 * a read request's `paths`, so a pattern such as `Grep(**)` bounds where a search goes.
 */
export function searchRoots(path: string | undefined, pattern: string | undefined): string[] {
  const root = path && path.length > 0 ? path : ".";
  const roots = [root];
  if (pattern && (isAbsolute(pattern) || pattern === "~" || pattern.startsWith("~/") || pattern.split(/[\\/]/).includes(".."))) {
    const parts = pattern.split("/");
    let n = 0;
    while (n < parts.length - 1 && !/[*?{}[\]\\]/.test(parts[n]!)) n++;
    const base = parts.slice(0, n).join("/") || (pattern.startsWith("/") ? "/" : ".");
    roots.push(isAbsolute(base) || base === "~" || base.startsWith("~/") ? base : `${root}/${base}`);
  }
  return [...new Set(roots)];
}

function tryRealpath(path: string): string | null {
  try {
    return realpathSync.native(path);
  } catch {
    // ENOENT, ENOTDIR, EACCES, ELOOP: not resolvable here; the caller tries a shorter prefix.
    return null;
  }
}
