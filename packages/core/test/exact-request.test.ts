/**
 * Issue #24: `always` on an MCP or kind-`other` request saves that exact request (kind, tool,
 * canonical input), never the bare tool name or kind; a pattern whose name stands for a kind
 * (`Read`, `Bash`) matches on the request's kind, never on a tool name that equals it; and
 * every backend routes its agent's requests through the policy when `deny` patterns exist,
 * bypass included.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { ApprovalRules } from "../src/approvals/approval-rules.js";
import { canonicalJson, exactRuleError } from "../src/approvals/exact-request.js";
import { exactPattern, matchesPattern, parsePattern, patternError } from "../src/approvals/permission-pattern.js";
import { compilePolicy, evaluatePolicy } from "../src/approvals/permission-policy.js";
import type { PermissionRequest } from "../src/approvals/permission-request.js";
import { policyRouting } from "../src/approvals/policy-routing.js";
import { createLogger } from "../src/logger.js";
import { initShellParser } from "../src/approvals/shell-parser.js";

// Deny patterns on shell commands are matched on the parsed command.
beforeAll(() => initShellParser());

const DIR = "/home/u/project";
const other = (tool: string, input?: unknown): PermissionRequest => ({ tool, kind: "other", summary: `use ${tool}`, ...(input === undefined ? {} : { input }) });
const mcp = (tool: string, input?: unknown): PermissionRequest => ({ tool, kind: "mcp", summary: `use ${tool}`, ...(input === undefined ? {} : { input }) });

describe("always on an MCP or other request saves that exact request", () => {
  it("one kind-other call approved for good does not cover a different kind-other call", () => {
    const first = other("other", { filepath: "/tmp/x", parentDir: "/tmp" });
    const saved = exactPattern(first, DIR)!;
    expect(saved).toBe('=other:other {"filepath":"/tmp/x","parentDir":"/tmp"}');
    const rule = parsePattern(saved);
    expect(matchesPattern(rule, first, DIR)).toBe(true);
    expect(matchesPattern(rule, other("other", { filepath: "/etc/shadow", parentDir: "/etc" }), DIR)).toBe(false);
    expect(matchesPattern(rule, other("other"), DIR)).toBe(false);
    expect(matchesPattern(rule, other("task", { filepath: "/tmp/x", parentDir: "/tmp" }), DIR)).toBe(false);
  });

  it("an MCP call's rule covers the same input in any key order, and nothing else", () => {
    const call = mcp("mcp__github__create_issue", { title: "t", labels: ["a", "b"], body: { text: "x", n: 1 } });
    const rule = parsePattern(exactPattern(call, DIR)!);
    expect(matchesPattern(rule, mcp("mcp__github__create_issue", { body: { n: 1, text: "x" }, labels: ["a", "b"], title: "t" }), DIR)).toBe(true);
    expect(matchesPattern(rule, mcp("mcp__github__create_issue", { title: "t", labels: ["b", "a"], body: { text: "x", n: 1 } }), DIR)).toBe(false);
    expect(matchesPattern(rule, mcp("mcp__github__delete_repo", { title: "t", labels: ["a", "b"], body: { text: "x", n: 1 } }), DIR)).toBe(false);
    expect(matchesPattern(rule, { ...call, kind: "other" }, DIR)).toBe(false);
  });

  it("a request with no structured input gets no rule (always then approves once)", () => {
    expect(exactPattern(other("other"), DIR)).toBeNull();
    expect(exactPattern(mcp("mcp__x__y"), DIR)).toBeNull();
    expect(exactPattern({ tool: "Edit", kind: "edit", summary: "edit" }, DIR)).toBeNull();
  });

  it("exact rules are valid patterns, bad ones are refused, and old bare-name rules keep loading", () => {
    expect(patternError('=mcp:x {"a":1}')).toBeNull();
    expect(exactRuleError("=mcp:x")).toMatch(/write =<kind>:<tool> <JSON input>/);
    expect(patternError("=nope:x {}")).toMatch(/unknown kind nope/);
    expect(patternError("=mcp:x {not json")).toMatch(/not JSON/);
    const rules = new ApprovalRules(null, createLogger({ level: "error", write: () => {} }));
    rules.add("mcp__github__create_issue", "alice");
    rules.add('=other:other {"a":1}', "alice");
    expect(rules.patterns().map((p) => p.source)).toEqual(["mcp__github__create_issue", '=other:other {"a":1}']);
    expect(matchesPattern(rules.patterns()[0]!, mcp("mcp__github__create_issue", {}), DIR)).toBe(true);
  });

  it("canonical JSON sorts keys at every level", () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[{"y":2,"z":1}]},"b":1}');
  });
});

describe("a name that stands for a kind matches the kind, not a tool of that name", () => {
  it.each([
    ["Read", other("Read", { path: "/etc" })],
    ["Edit", other("Edit")],
    ["Bash", other("Bash")],
    ["Bash(rm*)", { tool: "Bash", kind: "other", command: "rm -rf /", summary: "" } as PermissionRequest],
    ["Read", mcp("Read")],
  ])("%s does not match a %j", (pattern, request) => {
    expect(matchesPattern(parsePattern(pattern), request, DIR)).toBe(false);
    expect(evaluatePolicy(compilePolicy({ mode: "ask", allow: [pattern], deny: [] }), [], request, DIR)).toEqual({ action: "ask" });
  });

  it("still matches every tool of its kind and named tools by name", () => {
    expect(matchesPattern(parsePattern("Read"), { tool: "read_file", kind: "read", paths: ["a"], summary: "" }, DIR)).toBe(true);
    expect(matchesPattern(parsePattern("mcp__github__create_issue"), mcp("mcp__github__create_issue"), DIR)).toBe(true);
    expect(matchesPattern(parsePattern("Glob"), { tool: "Glob", kind: "read", summary: "" }, DIR)).toBe(true);
  });
});

describe("policy routing: deny applies in every mode", () => {
  it.each([
    [{ mode: "bypass", deny: [] }, "none"],
    [{ mode: "bypass", deny: ["Bash(rm -rf*)"] }, "deny"],
    [{ mode: "ask", deny: [] }, "ask"],
    [{ mode: "allowlist", deny: ["Bash(rm*)"] }, "ask"],
  ] as const)("%j -> %s", (permissions, routing) => {
    expect(policyRouting({ mode: permissions.mode, deny: [...permissions.deny] })).toBe(routing);
  });

  it("in bypass the daemon denies what deny matches and allows the rest without asking", () => {
    const policy = compilePolicy({ mode: "bypass", allow: [], deny: ["Bash(rm -rf*)"] });
    const shell = (command: string): PermissionRequest => ({ tool: "Bash", kind: "shell", command, summary: `run: ${command}` });
    expect(evaluatePolicy(policy, [], shell("rm -rf victim"), DIR)).toMatchObject({ action: "deny", reason: "the permissions.deny pattern Bash(rm -rf*) forbids this" });
    expect(evaluatePolicy(policy, [], shell("ls"), DIR)).toEqual({ action: "allow", pattern: null, source: "bypass" });
    expect(evaluatePolicy(policy, [], other("other"), DIR)).toEqual({ action: "allow", pattern: null, source: "bypass" });
  });
});
