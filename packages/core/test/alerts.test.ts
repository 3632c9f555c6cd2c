// Alerts without HTTP: the texts, the events filter, default severities, the alert hook
// (rewrite, drop, a failing tap) and the collapse of repeated alerts. The webhook half is in
// webhook.test.ts, against a real HTTP server.
import { describe, expect, it } from "vitest";
import { circuitOpenText, completeText, errorText, escalationText, questionText, spiralingText, timeoutText } from "../src/alerts/alert-texts.js";
import { Alerts } from "../src/alerts/alerts.js";
import { webhooksSchema, type WebhooksConfig } from "../src/config/schema.js";
import type { CultureError } from "../src/errors.js";
import type { AlertPayload } from "../src/events.js";
import { createDaemonHooks } from "../src/hooks.js";
import { createLogger } from "../src/logger.js";

const NICK = "spark-culture";

describe("alert texts", () => {
  it("match the specification's examples", () => {
    expect(spiralingText(NICK, "benchmark nemotron", "Retried cmake 4 times")).toBe(
      '[SPIRALING] spark-culture stuck on task "benchmark nemotron". Retried cmake 4 times. Awaiting guidance.',
    );
    expect(escalationText(NICK, "benchmark nemotron", "Retried same approach 4 times.")).toBe(
      '[ESCALATION] Agent spark-culture appears stuck on task "benchmark nemotron". Retried same approach 4 times. Awaiting human guidance. Reply @spark-culture resume/abort',
    );
    expect(questionText(NICK, "Delete 47 files. Proceed?")).toBe('[QUESTION] spark-culture needs input: "Delete 47 files. Proceed?"');
    expect(errorText("spark-assimilai", 1)).toBe("[ERROR] spark-assimilai crashed: process exited with code 1");
    expect(errorText("spark-assimilai", 137)).toBe("[ERROR] spark-assimilai crashed: process exited with code 137 (killed by SIGKILL)");
    expect(errorText("spark-assimilai", 143)).toBe("[ERROR] spark-assimilai crashed: process exited with code 143 (killed by SIGTERM)");
    expect(errorText("spark-assimilai", 255)).toBe("[ERROR] spark-assimilai crashed: process exited with code 255");
    expect(completeText(NICK, "benchmark nemotron")).toBe('[COMPLETE] spark-culture finished task "benchmark nemotron".');
    expect(completeText(NICK, "benchmark nemotron", "Results in #benchmarks.")).toBe(
      '[COMPLETE] spark-culture finished task "benchmark nemotron". Results in #benchmarks.',
    );
    expect(timeoutText(NICK, "Delete 47 files. Proceed?", 300)).toBe('[TIMEOUT] spark-culture got no answer in 300s to: "Delete 47 files. Proceed?"');
    expect(circuitOpenText(NICK, 3, 300, 1)).toBe(
      "[ESCALATION] Agent spark-culture crashed 3 times in 5 minutes (last exit code 1); restarts stopped. Awaiting human guidance. Reply @spark-culture resume to restart",
    );
  });

  it("keep tasks to one short line", () => {
    const task = "Benchmark nemotron\non the new box,\tthen " + "write it up ".repeat(20);
    const text = spiralingText(NICK, task, "No output for 12 minutes");
    expect(text).not.toMatch(/[\n\t]/);
    const quoted = /task "([^"]*)"/.exec(text)![1]!;
    expect(quoted.length).toBeLessThanOrEqual(80);
    expect(quoted).toMatch(/^Benchmark nemotron on the new box, then write it up .*…$/);
    expect(spiralingText(NICK, null, "stuck")).toBe('[SPIRALING] spark-culture stuck on task "its current task". stuck. Awaiting guidance.');
  });
});

function setup(overrides: Partial<WebhooksConfig> = {}, opts: { dedupeWindowMs?: number; hooks?: ReturnType<typeof createDaemonHooks> } = {}) {
  const irc: { channel: string; text: string }[] = [];
  const logs: string[] = [];
  const clock = { t: 1_700_000_000_000, now() { return this.t; } };
  const webhooks = { ...webhooksSchema.parse({}), ...overrides };
  const alerts = new Alerts({
    nick: NICK,
    webhooks,
    logger: createLogger({ level: "debug", write: (l) => logs.push(l) }),
    sendIrc: (channel, text) => {
      irc.push({ channel, text });
    },
    clock,
    ...(opts.hooks ? { hooks: opts.hooks } : {}),
    ...(opts.dedupeWindowMs !== undefined ? { dedupeWindowMs: opts.dedupeWindowMs } : {}),
  });
  return { alerts, irc, logs, clock };
}

describe("Alerts", () => {
  it("posts enabled events to the IRC channel, the escalation text when given", async () => {
    const { alerts, irc } = setup({ irc_channel: "#ops" });
    await alerts.fire("agent_error", errorText(NICK, 1));
    await alerts.fire("agent_spiraling", spiralingText(NICK, "t", "r"), { ircContent: escalationText(NICK, "t", "r") });
    expect(irc).toEqual([
      { channel: "#ops", text: "[ERROR] spark-culture crashed: process exited with code 1" },
      { channel: "#ops", text: escalationText(NICK, "t", "r") },
    ]);
  });

  it("fires only the events listed in webhooks.events", async () => {
    const { alerts, irc } = setup({ events: ["agent_error"] });
    await alerts.fire("agent_complete", completeText(NICK, "t"));
    await alerts.fire("agent_question", questionText(NICK, "q?"));
    await alerts.fire("agent_error", errorText(NICK, 2));
    expect(irc.map((m) => m.text)).toEqual([errorText(NICK, 2)]);
  });

  it("builds the payload with the default severities, and lets the alert hook rewrite or drop it", async () => {
    const hooks = createDaemonHooks();
    const seen: AlertPayload[] = [];
    hooks.alert.tapPromise("Recorder", async (a) => {
      if (a) seen.push({ ...a });
      return a;
    });
    hooks.alert.tapPromise("Rewriter", async (a) => {
      if (!a) return a;
      if (a.event === "agent_question") return null;
      return { ...a, content: a.content.replace("spark-culture", "SPARK"), ircContent: "rewritten for IRC" };
    });
    const { alerts, irc, clock } = setup({}, { hooks });
    for (const event of ["agent_spiraling", "agent_error", "agent_question", "agent_timeout", "agent_complete"] as const) {
      await alerts.fire(event, `${event} text`);
    }
    await alerts.fire("agent_error", "custom", { severity: "warning" });
    expect(seen.map((a) => [a.event, a.severity])).toEqual([
      ["agent_spiraling", "warning"],
      ["agent_error", "error"],
      ["agent_question", "info"],
      ["agent_timeout", "warning"],
      ["agent_complete", "info"],
      ["agent_error", "warning"],
    ]);
    expect(seen[0]).toEqual({ event: "agent_spiraling", nick: NICK, severity: "warning", content: "agent_spiraling text", timestamp: Math.floor(clock.t / 1000) });
    // The question was dropped; everything else was rewritten.
    expect(irc).toHaveLength(5);
    expect(irc.every((m) => m.text === "rewritten for IRC")).toBe(true);
  });

  it("delivers the alert unchanged when an alert tap throws", async () => {
    const errors: CultureError[] = [];
    const hooks = createDaemonHooks({ onTapError: (e) => errors.push(e) });
    hooks.alert.tapPromise("Broken", async () => {
      throw new Error("boom");
    });
    const { alerts, irc } = setup({}, { hooks });
    await alerts.fire("agent_error", errorText(NICK, 1));
    expect(irc.map((m) => m.text)).toEqual([errorText(NICK, 1)]);
    expect(errors[0]?.code).toBe("E_HOOK_FAILED");
  });

  it("collapses an identical alert within the window, and sends it again after", async () => {
    const { alerts, irc, clock, logs } = setup();
    await alerts.fire("agent_error", errorText(NICK, 1));
    clock.t += 59_000;
    await alerts.fire("agent_error", errorText(NICK, 1));
    await alerts.fire("agent_error", errorText(NICK, 2)); // different content: not a repeat
    await alerts.fire("agent_timeout", errorText(NICK, 1)); // different event: not a repeat
    expect(irc.map((m) => m.text)).toEqual([errorText(NICK, 1), errorText(NICK, 2), errorText(NICK, 1)]);
    expect(logs.some((l) => l.includes("collapsed a repeated alert"))).toBe(true);
    clock.t += 1_000; // 60 s after the first one was sent
    await alerts.fire("agent_error", errorText(NICK, 1));
    expect(irc).toHaveLength(4);
  });

  it("compares alerts after the hook's rewrites, and can be turned off", async () => {
    const hooks = createDaemonHooks();
    hooks.alert.tap("Normaliser", (a) => (a ? { ...a, content: a.content.replace(/code \d+/, "code N") } : a));
    const { alerts, irc } = setup({}, { hooks });
    await alerts.fire("agent_error", errorText(NICK, 1));
    await alerts.fire("agent_error", errorText(NICK, 2));
    expect(irc).toHaveLength(1);

    const off = setup({}, { dedupeWindowMs: 0 });
    await off.alerts.fire("agent_error", errorText(NICK, 1));
    await off.alerts.fire("agent_error", errorText(NICK, 1));
    expect(off.irc).toHaveLength(2);
  });

  it("logs a failing IRC send and never throws", async () => {
    const logs: string[] = [];
    const alerts = new Alerts({
      nick: NICK,
      webhooks: webhooksSchema.parse({}),
      logger: createLogger({ level: "debug", write: (l) => logs.push(l) }),
      sendIrc: () => {
        throw new Error("not connected");
      },
    });
    await expect(alerts.fire("agent_error", errorText(NICK, 1))).resolves.toBeUndefined();
    expect(logs.some((l) => l.includes("posting the alert to #alerts failed: not connected"))).toBe(true);
  });
});
