/**
 * The Claude side of approvals without a CLI: which permission mode Claude Code gets, how each
 * Claude Code tool becomes a culture PermissionRequest, how decisions become the SDK's answers,
 * and `canUseTool` itself (culture's IRC tools pass unasked; the SDK's signal is handed on).
 * The real CLI is in claude.approvals.real.test.ts; the flags with the fake CLI below.
 */
import { createLogger, type PermissionRequest } from "@culture/core";
import { afterEach, describe, expect, it } from "vitest";
import { askCultureHook, claudeCanUseTool, claudePermissionRequest, claudePermissionResult, claudePermissionSetup, policyDenyHook } from "../src/claude-permissions.js";
import type { PermissionMode } from "../src/claude-options.js";
import { ClaudeRunner } from "../src/claude-runner.js";
import { createHarness, record, type Harness } from "./fake-claude-harness.js";

describe("claudePermissionSetup: the Claude fields and culture's permissions", () => {
  const claude = (permission_mode: PermissionMode | null, allowed_tools: string[] = []) => ({ permission_mode, allowed_tools });

  it("bypass (the default): Claude Code's own mode, bypassPermissions unless set; culture is not asked", () => {
    expect(claudePermissionSetup(claude(null), { mode: "bypass", deny: [] })).toEqual({ mode: "bypassPermissions", asksCulture: false, checksDeny: false, conflicts: [] });
    expect(claudePermissionSetup(claude("acceptEdits", ["Read"]), { mode: "bypass", deny: [] })).toEqual({ mode: "acceptEdits", asksCulture: false, checksDeny: false, conflicts: [] });
  });

  it("bypass with deny patterns: still unattended, but every tool call is checked against them (issue #24)", () => {
    expect(claudePermissionSetup(claude(null), { mode: "bypass", deny: ["Bash(rm -rf*)"] })).toEqual({ mode: "bypassPermissions", asksCulture: false, checksDeny: true, conflicts: [] });
  });

  it("ask and allowlist: default mode, asking culture; permission_mode (other than default) and allowed_tools are reported as overridden", () => {
    expect(claudePermissionSetup(claude(null), { mode: "ask", deny: [] })).toEqual({ mode: "default", asksCulture: true, checksDeny: false, conflicts: [] });
    expect(claudePermissionSetup(claude("default"), { mode: "allowlist", deny: [] })).toEqual({ mode: "default", asksCulture: true, checksDeny: false, conflicts: [] });
    const setup = claudePermissionSetup(claude("acceptEdits", ["Bash(git:*)", "Read"]), { mode: "allowlist", deny: [] });
    expect(setup).toMatchObject({ mode: "default", asksCulture: true });
    expect(setup.conflicts).toEqual([
      "permission_mode acceptEdits is ignored: the agent's permissions (mode allowlist) decide, so Claude Code runs in default mode and asks culture for each tool. Remove permission_mode, or set permissions mode bypass to use it.",
      "allowed_tools (Bash(git:*), Read) no longer skip the asking for Bash, file, web and MCP tools: the agent's permissions (mode allowlist) decide. Put such rules in permissions.allow (e.g. Bash(npm test*)).",
    ]);
  });
});

describe("askCultureHook: what Claude Code must ask culture for", () => {
  const pre = (tool_name: string, mcp_server?: { name: string; source: string }) =>
    askCultureHook({ hook_event_name: "PreToolUse", tool_name, tool_input: {}, tool_use_id: "t", session_id: "s", transcript_path: "", cwd: "/", ...(mcp_server ? { mcp_server } : {}) }, "t", { signal: new AbortController().signal });
  const ask = { continue: true, hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "culture's permissions decide" } };

  it("forces a prompt for shell, edit, read, fetch and other MCP servers' tools, even those Claude Code allows unasked", async () => {
    for (const tool of ["Bash", "Edit", "Write", "Read", "Glob", "Grep", "WebFetch", "WebSearch", "mcp__github__create_issue"]) expect(await pre(tool)).toEqual(ask);
  });

  it("leaves culture's IRC tools and Claude Code's own machinery (ToolSearch, Agent, Skill) alone", async () => {
    expect(await pre("mcp__culture__send", { name: "culture", source: "sdk" })).toEqual({ continue: true });
    for (const tool of ["ToolSearch", "Agent", "Skill", "TodoWrite"]) expect(await pre(tool)).toEqual({ continue: true });
  });
});

describe("policyDenyHook: bypass with deny patterns", () => {
  const logger = createLogger({ level: "error", write: () => undefined });
  const pre = (hook: ReturnType<typeof policyDenyHook>, tool_name: string, tool_input: unknown, mcp_server?: { name: string; source: string }) =>
    hook({ hook_event_name: "PreToolUse", tool_name, tool_input, tool_use_id: "t", session_id: "s", transcript_path: "", cwd: "/", ...(mcp_server ? { mcp_server } : {}) }, "t", { signal: new AbortController().signal });

  it("refuses what the daemon denies, with its reason; leaves the rest to Claude Code; never checks culture's own IRC tools", async () => {
    const asked: PermissionRequest[] = [];
    const hook = policyDenyHook(async (r) => {
      asked.push(r);
      return r.command?.startsWith("rm -rf") ? { behavior: "deny", reason: "the permissions.deny pattern Bash(rm -rf*) forbids this", by: "policy" } : { behavior: "allow", scope: "once", by: "policy" };
    }, logger);
    expect(await pre(hook, "Bash", { command: "rm -rf victim" })).toEqual({
      continue: true,
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "the permissions.deny pattern Bash(rm -rf*) forbids this" },
    });
    expect(await pre(hook, "Bash", { command: "ls" })).toEqual({ continue: true });
    expect(await pre(hook, "mcp__culture__send", { target: "#a", message: "x" }, { name: "culture", source: "sdk" })).toEqual({ continue: true });
    // A look-alike name from a configured server is checked like any tool.
    expect(await pre(hook, "mcp__culture__send", { target: "#a", message: "x" }, { name: "culture", source: "project" })).toEqual({ continue: true });
    expect(asked.map((r) => `${r.kind}:${r.tool}`)).toEqual(["shell:Bash", "shell:Bash", "mcp:mcp__culture__send"]);
  });

  it("a failing check refuses the call", async () => {
    const hook = policyDenyHook(async () => Promise.reject(new Error("daemon gone")), logger);
    expect(await pre(hook, "Bash", { command: "ls" })).toMatchObject({ hookSpecificOutput: { permissionDecision: "deny", permissionDecisionReason: "culture could not check its deny patterns: daemon gone" } });
  });
});

describe("claudePermissionRequest: Claude Code's tools as culture requests", () => {
  const cases: Array<[string, Record<string, unknown>, Partial<PermissionRequest>]> = [
    ["Bash", { command: "npm publish\n  --tag next", description: "publish" }, { kind: "shell", command: "npm publish\n  --tag next", summary: "run: npm publish --tag next" }],
    ["Edit", { file_path: "/p/src/a.ts", old_string: "a", new_string: "b" }, { kind: "edit", paths: ["/p/src/a.ts"], summary: "edit /p/src/a.ts" }],
    ["MultiEdit", { file_path: "/p/b.ts", edits: [] }, { kind: "edit", paths: ["/p/b.ts"], summary: "edit /p/b.ts" }],
    ["Write", { file_path: "/p/new.txt", content: "x" }, { kind: "edit", paths: ["/p/new.txt"], summary: "write /p/new.txt" }],
    ["NotebookEdit", { notebook_path: "/p/n.ipynb", new_source: "x" }, { kind: "edit", paths: ["/p/n.ipynb"], summary: "edit notebook /p/n.ipynb" }],
    ["Read", { file_path: "/etc/hostname" }, { kind: "read", paths: ["/etc/hostname"], summary: "read /etc/hostname" }],
    ["Glob", { pattern: "**/*.ts", path: "/p/src" }, { kind: "read", paths: ["/p/src"], summary: "list files matching **/*.ts in /p/src" }],
    // A search without a path searches the agent's directory: `.` is in paths, so patterns bound it.
    ["Grep", { pattern: "TODO" }, { kind: "read", paths: ["."], summary: "search files for TODO in the project" }],
    ["Glob", { pattern: "**/*.json" }, { kind: "read", paths: ["."], summary: "list files matching **/*.json in the project" }],
    // A Glob pattern that leaves the folder searches where it leads too.
    ["Glob", { pattern: "/home/u/.ssh/*" }, { kind: "read", paths: [".", "/home/u/.ssh"], summary: "list files matching /home/u/.ssh/* in the project" }],
    ["Glob", { pattern: "../../**/*.pem", path: "src" }, { kind: "read", paths: ["src", "src/../.."], summary: "list files matching ../../**/*.pem in src" }],
    ["Glob", { pattern: "~/.aws/*" }, { kind: "read", paths: [".", "~/.aws"], summary: "list files matching ~/.aws/* in the project" }],
    ["LS", { path: "/home/u" }, { kind: "read", paths: ["/home/u"], summary: "list the files in /home/u" }],
    ["NotebookRead", { notebook_path: "/p/n.ipynb" }, { kind: "read", paths: ["/p/n.ipynb"], summary: "read /p/n.ipynb" }],
    ["WebFetch", { url: "https://example.com/a", prompt: "summarise" }, { kind: "fetch", url: "https://example.com/a", summary: "fetch https://example.com/a" }],
    ["WebSearch", { query: "culture irc" }, { kind: "fetch", summary: "search the web for culture irc" }],
    ["mcp__github__create_issue", { title: "x" }, { kind: "mcp", summary: "use create_issue of the MCP server github" }],
    ["Agent", { description: "review the diff", prompt: "..." }, { kind: "other", summary: "use Agent: review the diff" }],
    ["Skill", {}, { kind: "other", summary: "use Skill" }],
  ];
  it.each(cases)("%s", (tool, input, expected) => {
    const request = claudePermissionRequest(tool, input);
    expect(request).toMatchObject({ tool, input, ...expected });
    expect(request.summary).not.toMatch(/\n/);
    if (!expected.paths) expect(request.paths).toBeUndefined();
  });
});

describe("claudePermissionResult and canUseTool", () => {
  const input = { command: "rm -rf build" };

  it("allow runs the tool with its input unchanged; deny gives the model the reason", () => {
    expect(claudePermissionResult({ behavior: "allow", scope: "always", by: "olga" }, input)).toEqual({ behavior: "allow", updatedInput: input });
    expect(claudePermissionResult({ behavior: "deny", reason: "not on main", by: "olga" }, input)).toEqual({ behavior: "deny", message: "not on main" });
  });

  it("asks culture with the SDK's signal; culture's own IRC tools pass without asking; a failing ask is a denial", async () => {
    const asked: PermissionRequest[] = [];
    const canUseTool = claudeCanUseTool(async (r) => {
      asked.push(r);
      return { behavior: "deny", reason: "no", by: "test" };
    }, createLogger({ level: "error", write: () => undefined }));
    const signal = new AbortController().signal;
    const base = { signal, toolUseID: "t1", requestId: "r1" };
    expect(await canUseTool("Bash", input, base)).toEqual({ behavior: "deny", message: "no" });
    expect(asked).toHaveLength(1);
    expect(asked[0]!.signal).toBe(signal);
    expect(await canUseTool("mcp__culture__send", { target: "#a", message: "hi" }, { ...base, mcpServer: { name: "culture", source: "sdk" } })).toEqual({
      behavior: "allow",
      updatedInput: { target: "#a", message: "hi" },
    });
    // The server decides, never the name: without the source (older CLIs), or a configured server that calls itself culture, is asked for.
    await canUseTool("mcp__culture__read", {}, base);
    await canUseTool("mcp__culture__send", {}, { ...base, mcpServer: { name: "culture", source: "project" } });
    expect(asked.map((r) => r.tool)).toEqual(["Bash", "mcp__culture__read", "mcp__culture__send"]);

    const broken = claudeCanUseTool(async () => Promise.reject(new Error("daemon gone")), createLogger({ level: "error", write: () => undefined }));
    expect(await broken("Bash", input, base)).toEqual({ behavior: "deny", message: "culture could not ask for permission: daemon gone" });
  });
});

describe("ClaudeRunner flags with the fake CLI", () => {
  let h: Harness;
  const runners: ClaudeRunner[] = [];
  afterEach(async () => {
    for (const r of runners.splice(0)) await r.stop();
    h?.cleanup();
  });

  async function flags(overrides: Parameters<Harness["context"]>[0]): Promise<{ reply: string; argv: string[] }> {
    h = createHarness();
    const r = new ClaudeRunner(h.context(overrides), { stopGraceMs: 2000 });
    runners.push(r);
    const rec = record(r);
    await r.start();
    await r.sendPrompt("which model");
    return { reply: rec.texts().join("\n"), argv: h.eventsOf("spawn")[0]!.argv! };
  }

  it("permissions ask: default mode, prompts to the SDK (stdio), no skip flag, the IRC tools left to canUseTool, no AskUserQuestion", async () => {
    const { reply, argv } = await flags({ permissions: { mode: "ask", allow: [], deny: [], timeout_seconds: 600, on_timeout: "deny", protected: "ask", protected_paths: [] }, claude: { allowed_tools: ["Read"] } });
    expect(reply).toContain("permission=default skip=false allowed=Read disallowed=AskUserQuestion");
    expect(argv).toContain("--permission-prompt-tool=stdio");
  });

  it("permissions bypass: bypassPermissions with the skip flag and the IRC tools allowed by rule; nobody answers prompts", async () => {
    const { reply, argv } = await flags({});
    expect(reply).toContain("permission=bypassPermissions skip=true allowed=mcp__culture");
    expect(argv.some((a) => a.startsWith("--permission-prompt-tool"))).toBe(false);
  });
});
