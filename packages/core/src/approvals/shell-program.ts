/**
 * Which program a command word runs, for deny patterns: `rm`, `/bin/rm`, `/usr/bin/rm` and a
 * symlink to rm are the same program. A word is known by its last path segment and by the last
 * segment of the real path it resolves to (through PATH for a bare name), so `Bash(rm*)` also
 * denies `/usr/bin/rm`, and `Bash(/bin/rm*)` denies `rm`. Multi-call binaries (busybox) are not
 * used to equate names, or every busybox applet would be the same program.
 */
import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { delimiter, join } from "node:path";
import { basename } from "./shell-command.js";

const MULTI_CALL: ReadonlySet<string> = new Set(["busybox", "toybox", "coreutils", "box64"]);

const cache = new Map<string, readonly string[]>();

/** The names a program word is known by (its own last segment, and its real file's). */
export function programNames(word: string, path: string | undefined = process.env.PATH): readonly string[] {
  const key = `${word}\0${path ?? ""}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const names = new Set([basename(word)]);
  const file = word.includes("/") ? word : lookup(word, path);
  if (file) {
    try {
      const real = basename(realpathSync(file));
      if (!MULTI_CALL.has(real)) names.add(real);
    } catch {
      /* not there: the name alone */
    }
  }
  const result = [...names];
  if (cache.size > 512) cache.clear();
  cache.set(key, result);
  return result;
}

function lookup(name: string, path: string | undefined): string | null {
  for (const dir of (path ?? "").split(delimiter)) {
    if (!dir) continue;
    const file = join(dir, name);
    try {
      if (!statSync(file).isFile()) continue;
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      /* next */
    }
  }
  return null;
}
