// Codex approval requests as culture permission requests (codex-approvals.ts); the real CLI runs
// them in codex.approvals.real.test.ts.
import type { PermissionDecision, PermissionRequest } from "@culture/core";
import { silentLogger } from "@culture/core";
import { exactPattern, matchesPattern, parsePattern } from "@culture/core";
import { describe, expect, it } from "vitest";
import { approvalQuestion, unwrapShell, type ApprovalAsker } from "../src/codex-approvals.js";
import { serverRequestHandler } from "../src/server-requests.js";

const none = () => [];

describe("approvalQuestion", () => {
  it("a v2 command approval is a shell request with the command the model wrote", () => {
    const q = approvalQuestion("item/commandExecution/requestApproval", { turnId: "t1", itemId: "i1", command: `/bin/bash -c "touch 'a b' && echo \\"made\\""`, cwd: "/w" }, none);
    expect(q).toMatchObject({
      request: { tool: "exec_command", kind: "shell", command: `touch 'a b' && echo "made"`, summary: `run: touch 'a b' && echo "made"` },
      turnId: "t1",
      allow: { decision: "accept" },
      deny: { decision: "decline" },
    });
  });

  it("the legacy exec approval joins its argv and answers approved/denied", () => {
    const q = approvalQuestion("execCommandApproval", { command: ["npm", "publish"], cwd: "/w", reason: "needs network" }, none);
    expect(q).toMatchObject({ request: { kind: "shell", command: "npm publish", summary: "run: npm publish (needs network)" }, allow: { decision: "approved" }, deny: { decision: "denied" } });
  });

  it("a file change takes its paths from the started item; the legacy patch approval from its fileChanges", () => {
    const v2 = approvalQuestion("item/fileChange/requestApproval", { turnId: "t", itemId: "fc1" }, (id) => (id === "fc1" ? ["src/a.ts", "README.md"] : []));
    expect(v2).toMatchObject({ request: { tool: "apply_patch", kind: "edit", paths: ["src/a.ts", "README.md"], summary: "edit src/a.ts, README.md" } });
    const legacy = approvalQuestion("applyPatchApproval", { fileChanges: { "x.txt": {} } }, none);
    expect(legacy).toMatchObject({ request: { kind: "edit", paths: ["x.txt"] }, allow: { decision: "approved" } });
  });

  it("an MCP tool approval is kind mcp; other elicitations and unknown methods are not approvals", () => {
    const q = approvalQuestion("mcpServer/elicitation/request", { serverName: "docs", message: 'Allow the docs MCP server to run tool "fetch"?', _meta: { codex_approval_kind: "mcp_tool_call" } }, none);
    expect(q).toMatchObject({ request: { tool: "mcp__docs", kind: "mcp" }, allow: { action: "accept" }, deny: { action: "decline" } });
    // Codex's question names the tool; it is part of the input an `always` rule pins (issue #24), so two tools of one server with the same arguments differ.
    const call = (tool: string) =>
      approvalQuestion("mcpServer/elicitation/request", { serverName: "docs", message: `Allow the docs MCP server to run tool "${tool}"?`, _meta: { codex_approval_kind: "mcp_tool_call", tool_params: { q: "x" } } }, none)!.request;
    expect(call("fetch").input).toEqual({ message: 'Allow the docs MCP server to run tool "fetch"?', tool_params: { q: "x" } });
    const rule = parsePattern(exactPattern(call("fetch"), "/p")!);
    expect(matchesPattern(rule, call("fetch"), "/p")).toBe(true);
    expect(matchesPattern(rule, call("delete_all"), "/p")).toBe(false);
    expect(approvalQuestion("mcpServer/elicitation/request", { serverName: "docs", mode: "form", _meta: null }, none)).toBeNull();
    expect(approvalQuestion("item/tool/call", {}, none)).toBeNull();
  });

  it("unwrapShell leaves commands without Codex's shell wrapper alone", () => {
    expect(unwrapShell("bash -lc 'ls -la'")).toBe("ls -la");
    expect(unwrapShell("npm test")).toBe("npm test");
    expect(unwrapShell(`bash -c "a" "b"`)).toBe(`bash -c "a" "b"`);
  });
});

describe("serverRequestHandler with an asker", () => {
  function asker(decision: PermissionDecision, log: string[]): ApprovalAsker {
    return {
      ask: async (r: PermissionRequest) => {
        log.push(`ask ${r.summary}`);
        return decision;
      },
      changedPaths: () => [],
      explainDenial: async (turnId, text) => {
        log.push(`steer ${turnId}: ${text}`);
      },
    };
  }

  it("deny: the reason is steered into the turn before the decline is answered", async () => {
    const log: string[] = [];
    const handler = serverRequestHandler(asker({ behavior: "deny", reason: "not today", by: "alice" }, log), silentLogger);
    const answer = await handler("item/commandExecution/requestApproval", { turnId: "t9", command: "rm -rf build" }, new AbortController().signal);
    log.push(`answer ${JSON.stringify(answer)}`);
    expect(log).toEqual(["ask run: rm -rf build", "steer t9: [culture] Your request was denied (run: rm -rf build): not today. Do not retry it the same way.", 'answer {"decision":"decline"}']);
  });

  it("culture's own MCP tools are accepted without asking", async () => {
    const log: string[] = [];
    const handler = serverRequestHandler(asker({ behavior: "deny", reason: "no", by: "x" }, log), silentLogger);
    const answer = await handler("mcpServer/elicitation/request", { serverName: "culture", _meta: { codex_approval_kind: "mcp_tool_call" } }, new AbortController().signal);
    expect(answer).toEqual({ action: "accept", content: null, _meta: null });
    expect(log).toEqual([]);
  });
});
