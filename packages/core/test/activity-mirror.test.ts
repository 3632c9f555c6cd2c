/**
 * The activity mirror's parts without a server: the lines (masked, control characters visible,
 * quoted so a tool input cannot pass for one of our lines, never longer than one IRC line),
 * which turns are mirrored, the rate limit that coalesces rather than drops, and the parsing of
 * `@nick status|pending` next to `resume|abort`.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { mirrorSchema } from "../src/config/mirror-schema.js";
import { mirrorScope } from "../src/daemon/activity-mirror.js";
import { MIRROR_BACKLOG, MirrorOutbox } from "../src/daemon/mirror-outbox.js";
import { cutBytes, toolLine, turnLine } from "../src/daemon/mirror-texts.js";
import { parseAgentQuery, parseOperatorCommand } from "../src/daemon/operators.js";
import { newOrigin } from "../src/daemon/prompt-origin.js";
import { summarize, type RunningTool } from "../src/daemon/tool-progress.js";
import { pendingAnswer } from "../src/daemon/irc-queries.js";
import type { PendingApproval } from "../src/daemon/approval-desk.js";

const call = (input: unknown, name = "Bash"): RunningTool => ({ id: "t1", name, startedAt: 0, summary: summarize(input) });
const mention = newOrigin("mention", "#dev", "alice", "#dev", "@spark-echo run the tests");

describe("mirror lines", () => {
  it("a tool call: name, masked input in quotes, then duration and outcome", () => {
    expect(toolLine({ phase: "start", call: call({ command: "PGPASSWORD=hunter2 psql -c 'select 1'" }) })).toBe(`[tool] Bash "PGPASSWORD=*** psql -c 'select 1'"`);
    expect(toolLine({ phase: "end", call: call({ command: "npm test" }), durationMs: 1234, outcome: "done" })).toBe(`[tool] Bash done in 1.2s "npm test"`);
    expect(toolLine({ phase: "end", call: call({ command: "false" }), durationMs: 300, outcome: "failed" })).toBe(`[tool] Bash failed in 300ms "false"`);
    expect(toolLine({ phase: "end", call: call({ file_path: "/x" }, "Read"), durationMs: 61_000, outcome: "unfinished" })).toBe(`[tool] Read unfinished after 61.0s "/x"`);
  });

  it.each<[string, unknown, (line: string) => void]>([
    ["CR/LF cannot start a second line", { command: "ls\r\nPRIVMSG #dev :owned\n[turn] alice in #dev: done" }, (l) => expect(l).not.toMatch(/[\r\n]/)],
    ["a quote cannot close ours and fake a line", { command: `x" done in 1s "y` }, (l) => expect(l).toBe(`[tool] Bash "x\\" done in 1s \\"y"`)],
    ["ESC, NUL and bidi overrides are visible", { command: "a\x1b[31mred\x00\u202eevil" }, (l) => expect(l).toBe(`[tool] Bash "a\\e[31mred\\x00\\u{202e}evil"`)],
    ["a secret under a secret-looking key is masked", { api_key: "k-123456", path: "/etc" }, (l) => expect(l).not.toContain("k-123456")],
    ["a token format anywhere is masked", { command: "curl -H 'Authorization: Bearer ghp_abcdefghijklmnop' x" }, (l) => expect(l).not.toContain("abcdefghijklmnop")],
  ])("%s", (_why, input, check) => {
    const line = toolLine({ phase: "start", call: call(input) });
    expect(line.startsWith("[tool] Bash \"")).toBe(true);
    check(line);
  });

  it("a tool name with spaces or controls cannot fake the outcome words", () => {
    expect(toolLine({ phase: "start", call: call({ command: "ls" }, "Bash done in 1s\n") })).toBe(`[tool] Bash_done_in_1s\\n "ls"`);
  });

  it("a 10 kB input becomes one short line, cut within one IRC line", () => {
    const line = toolLine({ phase: "start", call: call({ command: "é".repeat(10_000) }) });
    expect(Buffer.byteLength(line)).toBeLessThan(400);
    const cut = cutBytes(`[turn] x: ${"€".repeat(1000)}`, 400);
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(400);
    expect(cut.endsWith("…")).toBe(true);
    expect(cut).not.toContain("\uFFFD");
  });

  it("a turn summary: who, where, status, duration, tools, the reply's first line (masked, cut); a DM says only who", () => {
    expect(turnLine({ origin: mention, error: null, durationMs: 12_345, tools: 4, finalText: "\n\nAll 112 tests pass.\nDetails: ..." })).toBe(
      `[turn] alice in #dev: done in 12.3s, 4 tool calls; reply: "All 112 tests pass."`,
    );
    const long = turnLine({ origin: mention, error: null, durationMs: 10, tools: 1, finalText: `token: sk-ant-${"a".repeat(40)} ${"b".repeat(300)}` });
    expect(long).not.toContain("a".repeat(20));
    expect(long.length).toBeLessThan(200);
    const dm = newOrigin("dm", null, "bob", "bob", "my password is hunter2");
    expect(turnLine({ origin: dm, error: null, durationMs: 3000, tools: 2, finalText: "your password hunter2 is weak" })).toBe("[turn] a DM from bob: done in 3.0s, 2 tool calls");
    expect(turnLine({ origin: mention, error: "turn timed out\nstack", durationMs: 600_000, tools: 0, finalText: "" })).toBe(`[turn] alice in #dev: failed ("turn timed out") in 600.0s, 0 tool calls`);
  });
});

describe("what is mirrored", () => {
  const mirror = { channel: "#Activity", include_origin: false };
  it.each<[string, ReturnType<typeof newOrigin> | null, typeof mirror, string]>([
    ["a mention elsewhere: all", mention, mirror, "all"],
    ["a mention in the mirror channel: nothing", newOrigin("mention", "#activity", "alice", "#activity", "x"), mirror, "none"],
    ["... by the server's case mapping", newOrigin("mention", "#ACTIVITY", "alice", "#ACTIVITY", "x"), mirror, "none"],
    ["... unless include_origin", newOrigin("mention", "#activity", "alice", "#activity", "x"), { ...mirror, include_origin: true }, "all"],
    ["a DM: the summary only", newOrigin("dm", null, "bob", "bob", "x"), mirror, "summary"],
    ["a schedule posting in the mirror channel: nothing", newOrigin("schedule", "#activity", "nightly", "#activity", "x"), mirror, "none"],
    ["a schedule elsewhere: all", newOrigin("schedule", "#dev", "nightly", "#dev", "x"), mirror, "all"],
    ["no turn: nothing", null, mirror, "none"],
  ])("%s", (_why, origin, m, scope) => {
    expect(mirrorScope(origin, m)).toBe(scope);
  });

  it("mirror: accepts a channel or an object, and refuses anything else", () => {
    expect(mirrorSchema.parse("#activity")).toEqual({ channel: "#activity", include_origin: false, burst: 5, interval_seconds: 2 });
    expect(mirrorSchema.parse({ channel: "#a", include_origin: true })).toMatchObject({ channel: "#a", include_origin: true });
    expect(mirrorSchema.safeParse("activity").success).toBe(false);
    expect(mirrorSchema.safeParse("#a b").success).toBe(false);
    expect(mirrorSchema.safeParse("#a\r\nJOIN #b").success).toBe(false);
    expect(mirrorSchema.safeParse({ channel: "#a", include: true }).success).toBe(false);
  });
});

describe("the mirror's rate limit", () => {
  afterEach(() => void vi.useRealTimers());

  it("coalesces tool calls over the limit into one '... N more' line, keeps turn summaries in order", () => {
    vi.useFakeTimers();
    const sent: string[] = [];
    const box = new MirrorOutbox({ burst: 2, intervalMs: 1000, send: (l) => sent.push(l) });
    for (let i = 0; i < 10; i++) {
      box.tool(`c${i}`, `start ${i}`);
      box.tool(`c${i}`, `end ${i}`);
    }
    box.turn("[turn] summary");
    box.tool("c10", "late");
    expect(sent).toEqual(["start 0", "end 0"]);
    vi.advanceTimersByTime(1000);
    expect(sent.at(-1)).toBe("[tool] ... 9 more tool calls (over the mirror's rate limit)");
    vi.advanceTimersByTime(1000);
    expect(sent.at(-1)).toBe("[turn] summary");
    vi.advanceTimersByTime(1000);
    expect(sent.at(-1)).toBe("[tool] ... 1 more tool call (over the mirror's rate limit)");
    expect(box.backlog).toBe(0);
    vi.advanceTimersByTime(10_000);
    box.tool("c11", "fresh");
    expect(sent.at(-1)).toBe("fresh");
    box.stop();
  });

  it("a long backlog of summaries keeps the newest and counts the oldest", () => {
    vi.useFakeTimers();
    const sent: string[] = [];
    const box = new MirrorOutbox({ burst: 1, intervalMs: 1000, send: (l) => sent.push(l) });
    for (let i = 0; i < MIRROR_BACKLOG + 6; i++) box.turn(`turn ${i}`);
    vi.advanceTimersByTime(1000 * (MIRROR_BACKLOG + 2));
    expect(sent[0]).toBe("turn 0");
    expect(sent[1]).toBe("[turn] ... 5 more turns (over the mirror's rate limit)");
    expect(sent.at(-1)).toBe(`turn ${MIRROR_BACKLOG + 5}`);
    box.stop();
  });
});

describe("@nick status|pending", () => {
  const names = ["spark-bot", "bot"];
  it.each<[string, boolean, string | null]>([
    ["@spark-bot status", false, "status"],
    ["spark-bot: pending?", false, "pending"],
    ["@bot STATUS.", false, "status"],
    ["status", true, "status"],
    ["status", false, null],
    ["@spark-bot status of the build", false, null],
    ["@spark-bot what is your status", false, null],
    ["@spark-bot resume", false, null],
  ])("%j (dm %s) -> %s", (text, dm, want) => {
    expect(parseAgentQuery(text, names, dm)).toBe(want);
  });
  it("resume/abort keep their own words (a question mark does not abort)", () => {
    expect(parseOperatorCommand("@spark-bot abort", names, false)).toBe("abort");
    expect(parseOperatorCommand("@spark-bot abort?", names, false)).toBeNull();
    expect(parseOperatorCommand("@spark-bot status", names, false)).toBeNull();
  });

  it("pending lists only the channel's requests, masked and cut, and says who may answer", () => {
    const p = (id: string, target: string | null, text: string): PendingApproval => ({ id, tool: "Bash", kind: "shell", summary: "", text, is_command: true, target, pattern: null, requested_at: 100, expires_at: 700 });
    const all = [p("7", "#dev", "npm publish --token=abc123"), p("8", "#ops", "rm -rf /tmp/x"), p("9", "#DEV", `echo "${"x".repeat(300)}"\r\n[APPROVAL 1] approved`)];
    const lines = pendingAnswer(all, "#dev", { nick: "spark-bot", operators: ["alice"] }, (n) => n.toLowerCase(), 142);
    expect(lines[0]).toBe("2 approval requests pending in #dev; operators who may answer (by account): alice");
    expect(lines[1]).toBe(`#7 Bash "npm publish --token=***" (42s ago); reply @spark-bot approve 7 | deny 7 | always 7; whole text: culture approvals show spark-bot 7`);
    expect(lines[2]).toMatch(/^#9 Bash "echo \\"x+…" \(42s ago\)/);
    expect(lines.join("\n")).not.toContain("#8");
    expect(lines).toHaveLength(3);
    expect(pendingAnswer(all, null, { nick: "spark-bot", operators: [] }, (n) => n, 142)[0]).toBe(
      "3 approval requests pending; no operators are configured, so nobody may answer on IRC: use culture approvals on the agent's host",
    );
    expect(pendingAnswer([], "#dev", { nick: "spark-bot", operators: [] }, (n) => n)).toEqual(["no approval request is pending in #dev"]);
  });
});
