/**
 * The allowlist `culture init` writes, run through the real policy: each shell entry allows
 * exactly its command, and nothing in issue #24's list (process substitution, extra words,
 * file-writing options) slips through it.
 */
import { compilePolicy, evaluatePolicy, initShellParser, type PermissionRequest } from "@culture/core";
import { beforeAll, expect, it } from "vitest";
import { DEFAULT_ALLOW } from "../src/commands/init.js";

beforeAll(() => initShellParser());

const policy = compilePolicy({ mode: "ask", allow: [...DEFAULT_ALLOW], deny: [] });
const decide = (command: string) => {
  const request: PermissionRequest = { tool: "Bash", kind: "shell", command, summary: `run: ${command}` };
  return evaluatePolicy(policy, [], request, "/home/u/project").action;
};
const exact = DEFAULT_ALLOW.filter((p) => p.startsWith("Bash(") && !p.endsWith("*)")).map((p) => p.slice(5, -1));

it.each(exact)("%j is allowed as written", (command) => {
  expect(decide(command)).toBe("allow");
});

it.each(exact)("%j with anything more is asked", (command) => {
  for (const more of [" <(touch P)", " >(touch P)", " --output=/tmp/x", " -o /tmp/x", " /etc", " ~/.ssh", "; touch P", " $(touch P)", " ${x@P}", " $[x]"]) {
    expect(decide(command + more), command + more).toBe("ask");
  }
});

it.each([
  "git status <(touch P19)",
  "ls <(touch P20)",
  "git diff --output=/tmp/x",
  "git log -p --output=/tmp/x",
  "ls /etc",
  "lsblk",
  "git status; rm -rf ~",
  "git branch -D main",
  "git show HEAD:secret > /tmp/x",
])("%j is asked", (command) => {
  expect(decide(command)).toBe("ask");
});
