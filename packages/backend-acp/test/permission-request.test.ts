import { describe, expect, it } from "vitest";
import { acpToolName, toPermissionRequest } from "../src/permission-request.js";

describe("toPermissionRequest: an ACP tool call as culture's PermissionRequest", () => {
  it("OpenCode's shell call: the command from rawInput", () => {
    const request = toPermissionRequest({ toolCallId: "call_abc", title: "touch x", kind: "execute", rawInput: { command: "touch x" } });
    expect(request).toMatchObject({ tool: "execute", kind: "shell", command: "touch x", summary: "run: touch x" });
  });

  it("Gemini CLI's shell call (no input): the command from the title, the tool name from the kind, not the call id", () => {
    const request = toPermissionRequest({ toolCallId: "run_shell_command__run_shell_command_1795692538503_0", title: "npm publish", kind: "execute" });
    expect(request).toMatchObject({ tool: "execute", kind: "shell", command: "npm publish", summary: "run: npm publish" });
    expect(request.input).toBeUndefined();
  });

  it("an edit: the paths from locations and rawInput, without duplicates", () => {
    const request = toPermissionRequest({ toolCallId: "c1", title: "edit", kind: "edit", locations: [{ path: "/p/a.ts" }], rawInput: { filePath: "/p/a.ts" } });
    expect(request).toMatchObject({ tool: "edit", kind: "edit", paths: ["/p/a.ts"], summary: "edit /p/a.ts" });
  });

  it("a fetch: the URL", () => {
    const request = toPermissionRequest({ toolCallId: "c2", title: "webfetch", kind: "fetch", rawInput: { url: "https://example.com" } });
    expect(request).toMatchObject({ kind: "fetch", url: "https://example.com", summary: "fetch https://example.com" });
  });

  it.each([
    // OpenCode's external_directory request: its title is the model's `description` argument.
    [{ toolCallId: "c3", title: "Read", kind: "other", rawInput: { filepath: "/etc/passwd", parentDir: "/etc" }, locations: [{ path: "/etc" }] }],
    [{ toolCallId: "c4", title: "culture_send", kind: "other", rawInput: { target: "#x", message: "/etc" } }],
    [{ toolCallId: "mcp_culture_send_1795691072059_0", title: "send" }],
    [{ toolCallId: "Read_1795691072059_0", title: "Read", kind: "think" }],
    [{ toolCallId: "c5", title: "Edit", kind: "switch_mode" }],
  ] as const)("a request whose kind is other, unknown or missing is `other` whatever its title or id: %j", (toolCall) => {
    const request = toPermissionRequest(toolCall as never);
    expect(request).toMatchObject({ tool: "other", kind: "other" });
    expect(request.summary).toMatch(/^use a tool of kind /);
  });

  it("the name comes from the kind only", () => {
    expect(acpToolName({ kind: "read" })).toBe("read");
    expect(acpToolName({ kind: "search" })).toBe("search");
    expect(acpToolName({ kind: "other" })).toBe("other");
    expect(acpToolName({})).toBe("other");
    expect(acpToolName({ kind: "toString" as never })).toBe("other");
  });

  it("what an exact `always` rule pins: rawInput and locations, or nothing without rawInput", () => {
    expect(toPermissionRequest({ toolCallId: "c", kind: "other", rawInput: { a: 1 }, locations: [{ path: "/x" }] }).input).toEqual({ rawInput: { a: 1 }, locations: [{ path: "/x" }] });
    expect(toPermissionRequest({ toolCallId: "c", kind: "other", title: "x", locations: [{ path: "/x" }] }).input).toBeUndefined();
  });
});
