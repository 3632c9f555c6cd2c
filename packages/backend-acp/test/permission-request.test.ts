import { describe, expect, it } from "vitest";
import { acpToolName, isCultureTool, toPermissionRequest } from "../src/permission-request.js";

describe("toPermissionRequest: an ACP tool call as culture's PermissionRequest", () => {
  it("OpenCode's shell call: the command from rawInput", () => {
    const request = toPermissionRequest({ toolCallId: "call_abc", title: "touch x", kind: "execute", rawInput: { command: "touch x" } });
    expect(request).toMatchObject({ tool: "execute", kind: "shell", command: "touch x", summary: "run: touch x" });
  });

  it("Gemini CLI's shell call: the name from the call id, the command from the title", () => {
    const request = toPermissionRequest({ toolCallId: "run_shell_command__run_shell_command_1795692538503_0", title: "npm publish", kind: "execute" });
    expect(request).toMatchObject({ tool: "run_shell_command", kind: "shell", command: "npm publish", summary: "run: npm publish" });
  });

  it("an edit: the paths from locations and rawInput, without duplicates", () => {
    const request = toPermissionRequest({ toolCallId: "c1", title: "edit", kind: "edit", locations: [{ path: "/p/a.ts" }], rawInput: { filePath: "/p/a.ts" } });
    expect(request).toMatchObject({ tool: "edit", kind: "edit", paths: ["/p/a.ts"], summary: "edit /p/a.ts" });
  });

  it("a fetch: the URL", () => {
    const request = toPermissionRequest({ toolCallId: "c2", title: "webfetch", kind: "fetch", rawInput: { url: "https://example.com" } });
    expect(request).toMatchObject({ kind: "fetch", url: "https://example.com", summary: "fetch https://example.com" });
  });

  it("an MCP tool of Gemini CLI is kind mcp", () => {
    expect(toPermissionRequest({ toolCallId: "mcp_github_create_issue_1795691072059_0", title: "create_issue", kind: "other" })).toMatchObject({ tool: "mcp_github_create_issue", kind: "mcp" });
  });
});

describe("isCultureTool", () => {
  it("knows culture's IRC tools under each agent's names", () => {
    expect(isCultureTool(acpToolName({ toolCallId: "mcp_culture_send_1795691072059_0", title: "send" }))).toBe(true);
    expect(isCultureTool("culture_send")).toBe(true);
    expect(isCultureTool("run_shell_command")).toBe(false);
    expect(isCultureTool("mcp_culturex_send")).toBe(false);
  });
});
