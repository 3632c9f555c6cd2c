// createDaemonHooks: ordering, waterfall rewrites and vetoes, and tap failures reported as
// E_HOOK_FAILED without stopping the hook — for every tap style (sync, promise, callback).
import { describe, expect, it } from "vitest";
import type { CultureError } from "../src/errors.js";
import type { AgentStatus, IpcRequest, PromptOrigin } from "../src/events.js";
import { createDaemonHooks } from "../src/hooks.js";

const origin: PromptOrigin = { id: "p1", kind: "mention", channel: "#general", sender: "alice", replyTo: "#general", text: "@bot hi" };

function hooksWithErrors() {
  const errors: CultureError[] = [];
  const hooks = createDaemonHooks({ onTapError: (e) => errors.push(e) });
  return { hooks, errors };
}

describe("createDaemonHooks", () => {
  it("is frozen and has the documented hooks", () => {
    const hooks = createDaemonHooks();
    expect(Object.isFrozen(hooks)).toBe(true);
    for (const name of ["ircMessage", "mention", "beforePrompt", "agentMessage", "agentExit", "whisper", "escalation", "alert", "ipcRequest", "status", "shutdown"]) {
      expect(hooks).toHaveProperty(name);
    }
  });

  it("runs series taps in registration order, stages first", async () => {
    const { hooks } = hooksWithErrors();
    const seen: string[] = [];
    hooks.beforePrompt.tap("A", (p) => (seen.push("A"), p));
    hooks.beforePrompt.tapPromise("B", async (p) => (seen.push("B"), p));
    hooks.beforePrompt.tap({ name: "Early", stage: -10 }, (p) => (seen.push("Early"), p));
    hooks.beforePrompt.tapAsync("C", (p, _o, cb) => (seen.push("C"), cb(null, p)));
    await hooks.beforePrompt.promise("x", origin);
    expect(seen).toEqual(["Early", "A", "B", "C"]);
  });

  it("waterfall: each tap gets the previous tap's value; undefined passes it on", async () => {
    const { hooks, errors } = hooksWithErrors();
    hooks.beforePrompt.tap("Upper", (p) => p?.toUpperCase() ?? null);
    hooks.beforePrompt.tap("Observer", () => undefined as unknown as string);
    hooks.beforePrompt.tapPromise("Suffix", async (p, o) => `${p} (from ${o.sender})`);
    expect(await hooks.beforePrompt.promise("hello", origin)).toBe("HELLO (from alice)");
    expect(errors).toEqual([]);
  });

  it("waterfall veto: a tap returning null drops the value, and later taps are not called", async () => {
    const { hooks, errors } = hooksWithErrors();
    const later: string[] = [];
    hooks.whisper.tap("Drop", () => null);
    // Written without a null check: a dropped whisper must not reach it.
    hooks.whisper.tap("Later", (w) => (later.push(w!.message), w));
    hooks.whisper.tapPromise("LaterPromise", async (w) => (later.push(w!.message), w));
    expect(await hooks.whisper.promise({ action: "CORRECTION", message: "stop looping" })).toBeNull();
    expect(later).toEqual([]);
    expect(errors).toEqual([]);
  });

  it("a throwing sync tap is E_HOOK_FAILED naming Daemon.hooks.<name> and the tap, with cause; the waterfall goes on with the previous value", async () => {
    const { hooks, errors } = hooksWithErrors();
    const boom = new Error("tap exploded");
    hooks.beforePrompt.tap("First", (p) => `${p}+1`);
    hooks.beforePrompt.tap("Broken", () => {
      throw boom;
    });
    hooks.beforePrompt.tap("Last", (p) => `${p}+3`);
    expect(await hooks.beforePrompt.promise("p", origin)).toBe("p+1+3");
    expect(errors).toHaveLength(1);
    const [err] = errors;
    expect(err?.code).toBe("E_HOOK_FAILED");
    expect(err?.message).toContain("Daemon.hooks.beforePrompt");
    expect(err?.message).toContain(`"Broken"`);
    expect(err?.message).toContain("tap exploded");
    expect(err?.cause).toBe(boom);
  });

  it("a rejecting promise tap and a failing callback tap are reported the same way", async () => {
    const { hooks, errors } = hooksWithErrors();
    hooks.mention.tapPromise("Rejects", async () => {
      throw new Error("async failure");
    });
    hooks.mention.tapAsync("CallsBackWithError", (_p, _o, cb) => cb(new Error("callback failure")));
    hooks.mention.tapAsync("ThrowsInCallbackTap", () => {
      throw new Error("sync throw in callback tap");
    });
    hooks.mention.tap("Survivor", (p) => `${p}!`);
    expect(await hooks.mention.promise("m", origin)).toBe("m!");
    expect(errors.map((e) => [e.code, e.details.hook, e.details.tap, (e.cause as Error).message])).toEqual([
      ["E_HOOK_FAILED", "mention", "Rejects", "async failure"],
      ["E_HOOK_FAILED", "mention", "CallsBackWithError", "callback failure"],
      ["E_HOOK_FAILED", "mention", "ThrowsInCallbackTap", "sync throw in callback tap"],
    ]);
  });

  it("a callback tap that fails after calling back is reported once and does not call back twice", async () => {
    const { hooks, errors } = hooksWithErrors();
    let survivorCalls = 0;
    hooks.beforePrompt.tapAsync("CallsBackThenThrows", (p, _o, cb) => {
      cb(null, `${p}-ok`);
      throw new Error("after callback");
    });
    hooks.beforePrompt.tap("Survivor", (p) => (survivorCalls++, p));
    expect(await hooks.beforePrompt.promise("v", origin)).toBe("v-ok");
    expect(survivorCalls).toBe(1);
    expect(errors.map((e) => e.details.tap)).toEqual(["CallsBackThenThrows"]);
  });

  it("parallel hooks: every tap runs even when one fails", async () => {
    const { hooks, errors } = hooksWithErrors();
    const ran: string[] = [];
    hooks.agentExit.tap("A", (code) => void ran.push(`A${code}`));
    hooks.agentExit.tapPromise("Broken", async () => {
      throw new Error("no");
    });
    hooks.agentExit.tapPromise("B", async (code) => void ran.push(`B${code}`));
    await hooks.agentExit.promise(1);
    expect(ran.sort()).toEqual(["A1", "B1"]);
    expect(errors.map((e) => e.message)).toEqual([`Daemon.hooks.agentExit: the tap "Broken" failed: no`]);
  });

  it("bail hooks: a failing tap does not bail; a later tap can answer", async () => {
    const { hooks, errors } = hooksWithErrors();
    hooks.ipcRequest.tapPromise("Broken", async () => {
      throw new Error("handler crashed");
    });
    hooks.ipcRequest.tap("Ping", (req) => (req.type === "ping" ? { ok: true, data: { pong: true } } : undefined));
    hooks.ipcRequest.tap("NeverReached", () => ({ ok: false, error: "should not be asked" }));
    const req: IpcRequest = { type: "ping", id: "1" };
    expect(await hooks.ipcRequest.promise(req)).toEqual({ ok: true, data: { pong: true } });
    expect(errors.map((e) => e.details.tap)).toEqual(["Broken"]);
  });

  it("bail hooks: returning true swallows (ircMessage)", async () => {
    const { hooks } = hooksWithErrors();
    const seen: string[] = [];
    hooks.ircMessage.tap("Spam", (m) => (m.text.includes("spam") ? true : undefined));
    hooks.ircMessage.tap("Seen", (m) => void seen.push(m.text));
    const msg = (text: string) => ({ kind: "privmsg" as const, nick: "eve", target: "#g", text, account: null, tags: {}, time: 0, isDm: false, bufferKey: "#g" });
    expect(await hooks.ircMessage.promise(msg("buy spam"))).toBe(true);
    expect(await hooks.ircMessage.promise(msg("hello"))).toBeUndefined();
    expect(seen).toEqual(["hello"]);
  });

  it("the sync status waterfall survives a throwing tap", () => {
    const { hooks, errors } = hooksWithErrors();
    hooks.status.tap("AddField", (s) => ({ ...s, plugin: "yes" }) as AgentStatus);
    hooks.status.tap("Broken", () => {
      throw new Error("status tap failed");
    });
    const status = hooks.status.call({ running: true } as unknown as AgentStatus) as unknown as Record<string, unknown>;
    expect(status).toEqual({ running: true, plugin: "yes" });
    expect(errors[0]?.message).toContain("Daemon.hooks.status");
  });

  it("without onTapError, failures go to stderr and the hook still completes", async () => {
    const hooks = createDaemonHooks();
    const written: string[] = [];
    const original = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string) => (written.push(String(chunk)), true)) as typeof process.stderr.write;
    try {
      hooks.shutdown.tap("Broken", () => {
        throw new Error("bye failed");
      });
      await hooks.shutdown.promise();
    } finally {
      process.stderr.write = original;
    }
    expect(written.join("")).toContain(`Daemon.hooks.shutdown: the tap "Broken" failed: bye failed`);
  });
});
