/**
 * The shell side of the permission policy (the rules are in shell-pattern.ts): allow patterns
 * and saved rules cover a plain command only, deny patterns match the parsed command, and a
 * command that cannot be proven clear of a deny pattern is never allowed by policy.
 */
import { patternNamesRequest, type PermissionPattern } from "./permission-pattern.js";
import type { PermissionRequest } from "./permission-request.js";
import { analyzeShellCommand } from "./shell-command.js";
import { allowCoversArgv, denyMatchesAnalysis, shellPatternWords } from "./shell-pattern.js";

/** How a pattern is used: to allow (allow list, saved rules) or to deny. */
export type PatternRole = "allow" | "deny";

/** True when `glob` (null: the bare tool name) covers `command` in `role` (the names already matched). */
export function shellPatternCovers(glob: string | null, command: string, role: PatternRole): boolean {
  if (role === "deny") return glob === null || denyMatchesAnalysis(glob, analyzeShellCommand(command)) === "match";
  const argv = analyzeShellCommand(command).argv;
  if (argv === null) return false;
  return glob === null || allowCoversArgv(glob, argv);
}

/**
 * When a shell request's command might run something a deny pattern forbids but that cannot be told from its
 * text (`$x -rf`, `eval "$s"`, text the parser cannot read), the first such pattern and why;
 * null when every deny pattern is clearly clear.
 */
export function unprovenDeny(patterns: readonly PermissionPattern[], request: PermissionRequest): { pattern: string; why: string } | null {
  if (request.kind !== "shell" || request.command === undefined) return null;
  const analysis = analyzeShellCommand(request.command);
  for (const p of patterns) {
    if (p.glob === null || !patternNamesRequest(p, request)) continue;
    if (denyMatchesAnalysis(p.glob, analysis) === "maybe") {
      const why = analysis.opaque[0] ?? `a word of a ${shellPatternWords(p.glob).words[0] ?? "matching"} command is not a literal word`;
      return { pattern: p.source, why };
    }
  }
  return null;
}

/**
 * The pattern `always` saves for a shell request: the tool and the command's exact literal argv
 * (`Bash(npm publish --tag next)`), or null when the command is not plain (then no rule can say
 * exactly what runs, and `always` approves once).
 */
export function shellExactPattern(name: string, command: string): string | null {
  const argv = analyzeShellCommand(command).argv;
  if (argv === null || argv.some((w) => w === "")) return null;
  return `${name}(${argv.map((w) => w.replace(/[\\*?{},() ]/g, "\\$&")).join(" ")})`;
}
