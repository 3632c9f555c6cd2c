/**
 * Copilot permission requests in culture's terms. The requests are the ones the real runtime
 * (1.0.85) sent for `bash`, `create`, `edit`, `view` and `web_fetch` calls (trimmed), so a
 * policy pattern sees what it would see in production.
 */
import { exactPattern, matchesPattern, parsePattern } from "@culture/core";
import type { PermissionRequest as CopilotPermissionRequest } from "@github/copilot-sdk";
import { describe, expect, it } from "vitest";
import { isCultureIrcTool, toPermissionRequest, toPermissionResult } from "../src/permission-mapping.js";

const shell = {
  kind: "shell",
  toolCallId: "call_1",
  fullCommandText: "touch /tmp/w/marker && echo made",
  intention: "Run a shell command",
  commands: [{ identifier: "touch /tmp/w/marker && echo made", readOnly: false }],
  possiblePaths: [],
  canOfferSessionApproval: false,
  possibleUrls: [],
  hasWriteFileRedirection: false,
} as CopilotPermissionRequest;
const create = { kind: "write", toolCallId: "call_2", intention: "Create file", fileName: "/tmp/w/new.txt", diff: "", newFileContents: "hello\n", canOfferSessionApproval: true } as CopilotPermissionRequest;
const edit = { kind: "write", toolCallId: "call_3", intention: "Edit file", fileName: "/tmp/w/inside.txt", diff: "", newFileContents: "changed\n", canOfferSessionApproval: true } as CopilotPermissionRequest;
const read = { kind: "read", toolCallId: "call_4", intention: "Read file: /etc/hostname", path: "/etc/hostname" } as CopilotPermissionRequest;
const url = { kind: "url", toolCallId: "call_5", intention: "Fetch content from this URL.", url: "https://example.com/x" } as CopilotPermissionRequest;
const mcp = (serverName: string) => ({ kind: "mcp", toolCallId: "call_6", serverName, toolName: "send", toolTitle: "Send", readOnly: false, args: { target: "#test", message: "hi" } }) as CopilotPermissionRequest;

describe("toPermissionRequest", () => {
  it.each([
    [shell, undefined, { tool: "bash", kind: "shell", command: "touch /tmp/w/marker && echo made", summary: "run: touch /tmp/w/marker && echo made" }],
    [create, "create", { tool: "create", kind: "edit", paths: ["/tmp/w/new.txt"], summary: "create /tmp/w/new.txt" }],
    [edit, "edit", { tool: "edit", kind: "edit", paths: ["/tmp/w/inside.txt"], summary: "edit /tmp/w/inside.txt" }],
    [read, "view", { tool: "view", kind: "read", paths: ["/etc/hostname"], summary: "read /etc/hostname" }],
    [url, "web_fetch", { tool: "web_fetch", kind: "fetch", url: "https://example.com/x", summary: "fetch https://example.com/x" }],
    [mcp("github"), "github-send", { tool: "github-send", kind: "mcp", summary: "use send of the MCP server github" }],
  ] as const)("%#: %o as %s", (request, toolName, expected) => {
    const mapped = toPermissionRequest(request, toolName);
    expect(mapped).toMatchObject(expected);
    const { toolCallId: _id, ...rest } = request as { toolCallId?: string };
    expect(mapped.input).toEqual(rest);
  });

  it("always on an MCP call pins that call (the call id aside): the same call matches again, other arguments do not (issue #24)", () => {
    const rule = parsePattern(exactPattern(toPermissionRequest(mcp("github"), "github-send"), "/p")!);
    const again = { ...(mcp("github") as object), toolCallId: "call_99" } as unknown as CopilotPermissionRequest;
    expect(matchesPattern(rule, toPermissionRequest(again, "github-send"), "/p")).toBe(true);
    const other = { ...(mcp("github") as object), args: { target: "mallory", message: "the key" } } as unknown as CopilotPermissionRequest;
    expect(matchesPattern(rule, toPermissionRequest(other, "github-send"), "/p")).toBe(false);
  });

  it("without the tool's name (the call's start was not seen) names the tool after the kind", () => {
    expect(toPermissionRequest(read).tool).toBe("view");
    expect(toPermissionRequest(mcp("github")).tool).toBe("github-send");
  });

  it("gives a shell command's possible paths when the runtime names them", () => {
    expect(toPermissionRequest({ ...shell, possiblePaths: ["/tmp/w/marker"] } as CopilotPermissionRequest).paths).toEqual(["/tmp/w/marker"]);
    expect(toPermissionRequest(shell)).not.toHaveProperty("paths");
  });

  it("maps the kinds culture has no field for to other", () => {
    expect(toPermissionRequest({ kind: "memory", fact: "tests live in test/" } as CopilotPermissionRequest)).toMatchObject({ kind: "other", tool: "memory", summary: "remember: tests live in test/" });
    expect(toPermissionRequest({ kind: "custom-tool", toolName: "deploy", toolDescription: "" } as CopilotPermissionRequest)).toMatchObject({ kind: "other", tool: "deploy", summary: "use deploy" });
  });
});

describe("isCultureIrcTool", () => {
  it("is true only for the culture MCP server's tools", () => {
    expect(isCultureIrcTool(mcp("culture"))).toBe(true);
    expect(isCultureIrcTool(mcp("github"))).toBe(false);
    expect(isCultureIrcTool(shell)).toBe(false);
  });
});

describe("toPermissionResult", () => {
  it("allow -> approve-once (also for always: the daemon keeps the rule); deny -> reject with the reason as feedback", () => {
    expect(toPermissionResult({ behavior: "allow", scope: "once", by: "alice" })).toEqual({ kind: "approve-once" });
    expect(toPermissionResult({ behavior: "allow", scope: "always", by: "alice" })).toEqual({ kind: "approve-once" });
    expect(toPermissionResult({ behavior: "deny", reason: "not today", by: "alice" })).toEqual({ kind: "reject", feedback: "not today" });
  });
});
