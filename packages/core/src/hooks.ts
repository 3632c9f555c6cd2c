/**
 * The daemon's extension points, one frozen object of tapable hooks (webpack style). Every
 * built-in optional behaviour (relay, alert de-duplication) is itself a tap, which proves the
 * hooks are enough for plugins.
 *
 * A tap that throws never kills the daemon: it is reported as `E_HOOK_FAILED` naming the hook
 * and the tap (with the original error as `cause`) and the hook carries on as if that tap had
 * not been there — a waterfall passes the previous value on, a bail hook does not bail.
 *
 * A waterfall tap that returns `null` vetoes the value (drops the prompt, whisper, alert): the
 * taps after it are not called, and the hook's result is `null`.
 */
import {
  AsyncParallelHook,
  AsyncSeriesBailHook,
  AsyncSeriesWaterfallHook,
  SyncHook,
  SyncWaterfallHook,
} from "tapable";
import type { StateChange } from "./daemon/daemon-state.js";
import type { AgentMessage } from "./agent-message.js";
import type { PermissionDecision, PermissionRequest } from "./approvals/permission-request.js";
import { hookFailed, type CultureError } from "./errors.js";
import type {
  AgentStatus,
  AlertPayload,
  IpcRequest,
  IpcResult,
  IrcMessageEvent,
  PromptOrigin,
  TurnResult,
  WhisperEvent,
} from "./events.js";
import type { UsageRecord } from "./usage/usage-record.js";

/** Options of {@link createDaemonHooks}. */
export interface DaemonHooksOptions {
  /** Receives every failing tap's error. Default: printed to stderr. */
  onTapError?: (error: CultureError) => void;
}

/** Creates the daemon's hooks. */
export function createDaemonHooks(options: DaemonHooksOptions = {}) {
  const hooks = {
    /** The daemon is connected, joined, and its runner has started. Parallel; cannot veto. */
    ready: new AsyncParallelHook<[]>([], "ready"),
    /**
     * Any PRIVMSG/NOTICE/ACTION from someone else, before it is buffered or checked for a
     * mention. Series bail: return `true` to swallow the message (not buffered, no prompt).
     */
    ircMessage: new AsyncSeriesBailHook<[message: IrcMessageEvent], boolean | undefined | void>(["message"], "ircMessage"),
    /**
     * A channel mention or DM is about to become a prompt. Waterfall over the prompt text:
     * return a rewritten prompt, or `null` to drop it.
     */
    mention: new AsyncSeriesWaterfallHook<[prompt: string | null, origin: PromptOrigin]>(["prompt", "origin"], "mention"),
    /**
     * Any prompt (mention, DM, resume, initial) is about to be sent to the runner. Waterfall:
     * return the text to send, or `null` to drop it.
     */
    beforePrompt: new AsyncSeriesWaterfallHook<[prompt: string | null, origin: PromptOrigin]>(["prompt", "origin"], "beforePrompt"),
    /** The agent produced a message (during the given prompt's turn). Parallel; cannot veto. */
    agentMessage: new AsyncParallelHook<[message: AgentMessage, origin: PromptOrigin | null]>(["message", "origin"], "agentMessage"),
    /** A turn ended (reply correlated to its prompt). Parallel; the relay plugin taps this. */
    turnEnd: new AsyncParallelHook<[turn: TurnResult]>(["turn"], "turnEnd"),
    /**
     * A finished turn's usage was metered and written to the usage journal (once per turn, after
     * `turnEnd`'s taps were called). Parallel; cannot veto. Budgets tap this.
     */
    turnUsage: new AsyncParallelHook<[record: UsageRecord]>(["record"], "turnUsage"),
    /** The agent process exited (0 clean, else a crash). Parallel; cannot veto the restart. */
    agentExit: new AsyncParallelHook<[code: number]>(["code"], "agentExit"),
    /** A supervisor whisper is about to be delivered. Waterfall: rewrite it, or return `null` to drop it. */
    whisper: new AsyncSeriesWaterfallHook<[whisper: WhisperEvent | null]>(["whisper"], "whisper"),
    /** The supervisor escalated to humans (before the alert and the pause). Parallel; cannot veto. */
    escalation: new AsyncParallelHook<[message: string]>(["message"], "escalation"),
    /** An alert is about to be delivered to #alerts and the webhook. Waterfall: rewrite, or `null` to drop. */
    alert: new AsyncSeriesWaterfallHook<[alert: AlertPayload | null]>(["alert"], "alert"),
    /**
     * An IPC request arrived. Series bail: return an {@link IpcResult} to answer it (plugins add
     * commands this way); return `undefined` to let the built-in handlers answer.
     */
    ipcRequest: new AsyncSeriesBailHook<[request: IpcRequest], IpcResult | undefined | void>(["request"], "ipcRequest"),
    /** The status object is being built. Sync waterfall: return it with fields added or changed. */
    status: new SyncWaterfallHook<[status: AgentStatus]>(["status"], "status"),
    /**
     * The agent asks to use a tool (see `RunnerContext.requestPermission`). Series bail: return
     * a {@link PermissionDecision} to answer it (tests and plugins); return `undefined` to let
     * the daemon's permission policy answer.
     */
    permissionRequest: new AsyncSeriesBailHook<[request: PermissionRequest, origin: PromptOrigin | null], PermissionDecision | undefined | void>(["request", "origin"], "permissionRequest"),
    /**
     * The daemon's state changed (daemon/daemon-state.ts: starting, ready, reconnecting,
     * restarting, paused, stopping, stopped), with the reason and the facts behind it. Sync;
     * called after the transition is logged; taps cannot veto (publish presence, meter, alert).
     */
    stateChange: new SyncHook<[change: StateChange]>(["change"], "stateChange"),
    /** The daemon is shutting down (before the runner stops). Parallel; cannot veto. */
    shutdown: new AsyncParallelHook<[]>([], "shutdown"),
  };
  const report =
    options.onTapError ?? ((error: CultureError) => process.stderr.write(`${error.message}\n`));
  for (const [name, hook] of Object.entries(hooks)) guardTaps(name, hook, report);
  return Object.freeze(hooks);
}

/** The daemon's hooks. */
export type DaemonHooks = ReturnType<typeof createDaemonHooks>;

type AnyTap = { name: string; type: "sync" | "async" | "promise"; fn: (...args: any[]) => any };
const WATERFALL = new Set(["mention", "beforePrompt", "whisper", "alert", "status"]);
/** Waterfalls whose value may be vetoed with `null`: once dropped, later taps are skipped. */
const VETOABLE = new Set(["mention", "beforePrompt", "whisper", "alert"]);

/**
 * Wraps every tap so a failure is reported and the hook carries on, and so a vetoed (null)
 * waterfall value is not handed to later taps: `null` means "dropped", and a tap written for
 * the value must not have to check for it.
 */
function guardTaps(hookName: string, hook: { intercept(i: object): void }, report: (e: CultureError) => void): void {
  const waterfall = WATERFALL.has(hookName);
  const vetoable = VETOABLE.has(hookName);
  hook.intercept({
    register(tap: AnyTap): AnyTap {
      const fn = tap.fn;
      const fallback = (args: unknown[]) => (waterfall ? args[0] : undefined);
      const vetoed = (args: unknown[]) => vetoable && args[0] === null;
      if (tap.type === "sync") {
        return {
          ...tap,
          fn: (...args: unknown[]) => {
            if (vetoed(args)) return null;
            try {
              return fn(...args);
            } catch (err) {
              report(hookFailed(hookName, tap.name, err));
              return fallback(args);
            }
          },
        };
      }
      if (tap.type === "promise") {
        return {
          ...tap,
          fn: async (...args: unknown[]) => {
            if (vetoed(args)) return null;
            try {
              return await fn(...args);
            } catch (err) {
              report(hookFailed(hookName, tap.name, err));
              return fallback(args);
            }
          },
        };
      }
      // Callback-style tap: the last argument is the callback, which must be called exactly once.
      return {
        ...tap,
        fn: (...args: unknown[]) => {
          const callback = args.pop() as (err?: unknown, result?: unknown) => void;
          if (vetoed(args)) return callback(null, null);
          let called = false;
          const once = (err: unknown, result?: unknown) => {
            if (called) return;
            called = true;
            callback(err, result);
          };
          try {
            fn(...args, (err: unknown, result: unknown) => {
              if (err) {
                report(hookFailed(hookName, tap.name, err));
                return once(null, fallback(args));
              }
              once(null, result);
            });
          } catch (err) {
            report(hookFailed(hookName, tap.name, err));
            once(null, fallback(args));
          }
        },
      };
    },
  });
}
