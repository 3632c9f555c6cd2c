/**
 * Protected paths named by a shell command's arguments (issue #24): `Bash(cat*)` must not let
 * `cat ~/.ssh/id_rsa` through unasked. Given the literal argv of a plain command (the shell
 * parser hands it over only when every word is a literal, so what is here is what runs), each
 * word that may be a path is resolved against the agent's directory the way the shell and the
 * program would see it, and checked against the agent's {@link ProtectedPaths}.
 *
 * Which words are paths is a guess, so it guesses wide: every word (a bare `opencode.json` is a
 * file too), the value after the first `=` (`--output=~/.ssh/x`, `KEY=~/x`), and the part of an
 * option from its first `/` or `~` on (`-o/etc/x`). `~` and `~user` at the start are expanded
 * as bash does. A folder that holds a protected path counts (`grep -r key ~`, `ls /`).
 */
import { readFileSync } from "node:fs";
import { homedir, userInfo } from "node:os";
import type { ProtectedHit, ProtectedPaths } from "./protected-paths.js";

/**
 * The first protected path a literal argv touches, or null. `argv[0]` is the program (checked
 * too: running a file from a protected folder is touching it); `directory` is where the command
 * runs (the agent's directory); `home` is the `$HOME` the shell expands `~` to.
 */
export function protectedShellArgument(argv: readonly string[], directory: string, paths: ProtectedPaths, home: string = homedir()): ProtectedHit | null {
  for (const word of argv) {
    for (const candidate of pathCandidates(word)) {
      const expanded = expandTilde(candidate, home);
      if (expanded === null || expanded === "") continue;
      const hit = paths.check(expanded, "any", directory);
      if (hit) return { ...hit, requested: word };
    }
  }
  return null;
}

/** The parts of one word that may be a path. */
function pathCandidates(word: string): string[] {
  const out = new Set<string>([word]);
  const eq = word.indexOf("=");
  if (eq >= 0) out.add(word.slice(eq + 1));
  if (word.startsWith("-")) {
    const at = word.search(/[/~]/);
    if (at > 0) out.add(word.slice(at));
  }
  return [...out];
}

/** `~`, `~/x`, `~user/x` as bash expands them at the start of a word; other words unchanged. Null for `~user` of an unknown user (bash keeps it literal, which is a relative path). */
function expandTilde(word: string, home: string): string | null {
  if (!word.startsWith("~")) return word;
  const slash = word.indexOf("/");
  const user = slash < 0 ? word.slice(1) : word.slice(1, slash);
  const rest = slash < 0 ? "" : word.slice(slash);
  if (user === "") return home + rest;
  const dir = userHome(user);
  return dir === null ? word : dir + rest;
}

function userHome(user: string): string | null {
  try {
    if (user === userInfo().username) return userInfo().homedir;
  } catch {
    /* no passwd entry for this uid */
  }
  try {
    for (const line of readFileSync("/etc/passwd", "utf8").split("\n")) {
      const f = line.split(":");
      if (f[0] === user && f[5]) return f[5];
    }
  } catch {
    /* no /etc/passwd (not Linux/macOS) */
  }
  return null;
}
