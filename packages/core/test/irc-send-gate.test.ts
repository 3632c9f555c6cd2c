/**
 * The pure parts of the IrcSend gate: which IPC requests put text on IRC (and where), what the
 * origin is, and how `IrcSend(...)` patterns match a target. The daemon end to end is in
 * ipc-sockets.integration.test.ts.
 */
import { describe, expect, it } from "vitest";
import { compilePolicy, evaluatePolicy } from "../src/approvals/permission-policy.js";
import { exactPattern, matchesPattern, parsePattern } from "../src/approvals/permission-pattern.js";
import type { PermissionRequest } from "../src/approvals/permission-request.js";
import { controlOnToolsSocket, isControlType, toolOnControlSocket, withoutToken, CONTROL_IPC_TYPES, TOOLS_IPC_TYPES } from "../src/daemon/ipc-access.js";
import { IPC_COMMANDS } from "../src/daemon/ipc-handlers.js";
import { outgoingText, taskOrigin } from "../src/daemon/irc-send-gate.js";
import type { IpcRequest, PromptOrigin } from "../src/events.js";

const req = (type: string, fields: Record<string, unknown>): IpcRequest => ({ type, id: "1", ...fields });
const send = (target: string): PermissionRequest => ({ tool: "IrcSend", kind: "irc", target, summary: `send to ${target}: x` });
const origin = (kind: PromptOrigin["kind"], replyTo: string | null): PromptOrigin => ({ id: kind, kind, channel: null, sender: null, replyTo, text: "" });

describe("outgoingText: what puts text on IRC", () => {
  it.each([
    [req("irc_send", { channel: "mallory", message: "hi" }), { target: "mallory", text: "hi", summary: "send to mallory: hi" }],
    [req("irc_send", { channel: " #dev\r\n", message: "" }), { target: "#dev", text: "", summary: "send to #dev: " }],
    [req("irc_ask", { channel: "#dev", question: "q?" }), { target: "#dev", text: "q?", summary: "ask #dev: q?" }],
    [req("irc_ask", { channel: "#dev", message: "ref client" }), { target: "#dev", text: "ref client", summary: "ask #dev: ref client" }],
    [req("irc_topic", { channel: "#dev", topic: "" }), { target: "#dev", text: "", summary: "set the topic of #dev to: " }],
    [req("irc_part", { channel: "#dev", reason: "bye" }), { target: "#dev", text: "bye", summary: "leave #dev saying: bye" }],
  ])("%o", (request, expected) => {
    expect(outgoingText(request)).toEqual(expected);
  });

  it.each([
    req("irc_topic", { channel: "#dev" }),
    req("irc_part", { channel: "#dev" }),
    req("irc_part", { channel: "#dev", reason: "  " }),
    req("irc_read", { channel: "mallory" }),
    req("irc_who", { channel: "mallory" }),
    req("irc_join", { channel: "#dev" }),
    req("irc_send", { channel: "#a,mallory", message: "x" }),
    req("irc_send", { channel: "#a mallory", message: "x" }),
    req("irc_send", { message: "x" }),
  ])("sends nothing (or is refused by the handler): %o", (request) => {
    expect(outgoingText(request)).toBeNull();
  });
});

describe("taskOrigin", () => {
  const mention = origin("mention", "#general");
  it("is the turn's own when a person started it, the last task's for a resume, none when idle", () => {
    expect(taskOrigin(mention, null)).toBe(mention);
    expect(taskOrigin(origin("dm", "alice"), mention)?.replyTo).toBe("alice");
    expect(taskOrigin(origin("resume", null), mention)).toBe(mention);
    expect(taskOrigin(origin("system", null), null)).toBeNull();
    expect(taskOrigin(null, mention)).toBeNull();
  });
});

describe("IrcSend patterns", () => {
  it.each([
    ["IrcSend(#dev)", "#dev", true],
    ["IrcSend(#dev)", "#DEV", true],
    ["IrcSend(#Dev)", "#dev", true],
    ["ircsend(#dev)", "#dev", true],
    ["IrcSend", "anyone", true],
    ["IrcSend(#team-*)", "#team-red", true],
    ["IrcSend(#dev)", "#dev-leak", false],
    ["IrcSend(#dev)", "@#dev", false],
    ["IrcSend(#dev)", "mallory", false],
    ["Bash", "#dev", false],
    ["mcp", "#dev", false],
  ])("%s covers %s: %s", (pattern, target, expected) => {
    expect(matchesPattern(parsePattern(pattern), send(target), "/work")).toBe(expected);
  });

  it("always saves the exact target; deny wins in bypass", () => {
    expect(exactPattern(send("Mallory"), "/work")).toBe("IrcSend(mallory)");
    expect(exactPattern(send("#a{b}"), "/work")).toBe("IrcSend(#a\\{b\\})");
    const policy = compilePolicy({ mode: "bypass", allow: [], deny: ["IrcSend(mallory)"] });
    expect(evaluatePolicy(policy, [], send("mallory"), "/work").action).toBe("deny");
    expect(evaluatePolicy(policy, [], send("#dev"), "/work").action).toBe("allow");
  });
});

describe("which socket answers what", () => {
  it("classifies every built-in IPC command", () => {
    expect([...TOOLS_IPC_TYPES, ...CONTROL_IPC_TYPES].sort()).toEqual([...IPC_COMMANDS, "approvals", "approval_answer", "approval_revoke", "abort" /* agent-presence.ts answers it */, "budget", "schedules", "schedule_run", "schedule_pause", "schedule_resume", "events" /* event-feed.ts answers it, for culture console */].sort());
    for (const t of TOOLS_IPC_TYPES) expect(isControlType(t), t).toBe(false);
    for (const t of [...CONTROL_IPC_TYPES, "approval_show", "approvals_export", "schedule_delete"]) expect(isControlType(t), t).toBe(true);
  });

  it("says what to run instead; the control socket sends the tools back; the token never reaches a handler", () => {
    expect(controlOnToolsSocket("resume", "spark-x")).toEqual({ ok: false, error: expect.stringMatching(/Run culture resume spark-x from your own shell/) });
    expect(toolOnControlSocket("irc_send", "/run/culture-x.sock")).toMatchObject({ ok: false, error: expect.stringMatching(/send it to the tools socket \/run\/culture-x\.sock/) });
    expect(toolOnControlSocket("status", "/x")).toBeNull();
    expect(toolOnControlSocket("pause", "/x")).toBeNull();
    expect(withoutToken(req("pause", { token: "secret" }))).toEqual({ type: "pause", id: "1" });
  });
});
