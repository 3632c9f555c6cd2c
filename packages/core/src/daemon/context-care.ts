/**
 * Context care: the agent hears when its context window fills up, before the model refuses a
 * prompt that no longer fits (agent-kernel warns its agents at ~70 %). Backends that know how
 * full the window is report it on their messages (`AgentMessage.context`); this plugin keeps
 * the newest report, whispers a warning once per crossing of `context.warn_at`, and, when
 * `context.compact_at` is set, compacts the context after the turn that crossed it (through
 * the same path as `culture channel compact`). A crossing counts again once the share has
 * fallen below the threshold (after a compaction or a /clear). Status shows the share.
 *
 * Backends whose agent reports no window size show the tokens without a share and are never
 * warned: a guessed window would warn at the wrong time.
 */
import type { ContextUse } from "../agent-message.js";
import type { ContextConfig } from "../config/context-schema.js";
import { DEFAULT_CONTEXT_CONFIG } from "../config/context-schema.js";
import type { AgentConfig, CultureConfig } from "../config/schema.js";
import { errorMessage } from "../errors.js";
import type { DaemonHooks } from "../hooks.js";
import type { Logger } from "../logger.js";

const PLUGIN_NAME = "ContextCare";

/** What context care needs from the daemon. */
export interface ContextCareOptions {
  nick: string;
  config: ContextConfig;
  logger: Logger;
  /** Whispers to the agent (delivered at its next tool boundary or `culture channel` call). */
  whisper(message: string): Promise<void> | void;
  /** Compacts the agent's context (the turn loop's compact path). */
  compact(): Promise<unknown>;
}

/** The `context` field of the daemon's status. */
export interface ContextStatus {
  used_tokens: number;
  window_tokens: number | null;
  /** used / window, rounded to 3 places; null without a window size. */
  share: number | null;
  warn_at: number | null;
  compact_at: number | null;
  /** Warnings whispered since the daemon started. */
  warnings: number;
  /** Compactions context care started since the daemon started. */
  compactions: number;
}

/** The effective context settings of an agent: its own, else the config's, else the defaults. */
export function contextConfigOf(config: Pick<CultureConfig, "context">, agent: Pick<AgentConfig, "context">): ContextConfig {
  return agent.context ?? config.context ?? DEFAULT_CONTEXT_CONFIG;
}

/** The text of the warning whisper. */
export function contextWarningText(use: ContextUse, share: number, compactAt: number | null): string {
  const pct = Math.round(share * 100);
  const then = compactAt !== null ? `culture compacts it at ${Math.round(compactAt * 100)}%` : "compact it with `culture channel compact` when a step is done";
  return (
    `Your context window is ${pct}% full (${use.usedTokens} of ${use.windowTokens} tokens). ` +
    `Finish the step you are on and write down what you must keep (notes in a file); ${then}.`
  );
}

/** Watches the agent's context use (see the module comment). */
export class ContextCare {
  private latest: ContextUse | null = null;
  private warned = false;
  private compactDue = false;
  private compactArmed = true;
  private warnings = 0;
  private compactions = 0;

  constructor(private readonly o: ContextCareOptions) {}

  /** The newest report, or null before the first. */
  get use(): ContextUse | null {
    return this.latest;
  }

  /** A report from the agent: keeps it, warns or marks a compaction due when a threshold is crossed. */
  async note(use: ContextUse): Promise<void> {
    this.latest = { usedTokens: use.usedTokens, windowTokens: use.windowTokens };
    const share = shareOf(use);
    if (share === null) return;
    const { warn_at, compact_at } = this.o.config;
    if (warn_at !== null) {
      if (share < warn_at) this.warned = false;
      else if (!this.warned) {
        this.warned = true;
        this.warnings++;
        this.o.logger.info("context window filling up; whispering a warning", { share: round(share), used: use.usedTokens, window: use.windowTokens });
        try {
          await this.o.whisper(contextWarningText(use, share, compact_at));
        } catch (err) {
          this.o.logger.warn(`the context warning was not whispered: ${errorMessage(err)}`);
        }
      }
    }
    if (compact_at !== null) {
      if (share < compact_at) this.compactArmed = true;
      else if (this.compactArmed) {
        this.compactArmed = false;
        this.compactDue = true;
      }
    }
  }

  /** A turn ended: runs a compaction that became due during it. */
  async afterTurn(): Promise<void> {
    if (!this.compactDue) return;
    this.compactDue = false;
    this.compactions++;
    this.o.logger.info("context window past compact_at; compacting", { share: this.latest ? round(shareOf(this.latest) ?? 0) : null, compact_at: this.o.config.compact_at });
    try {
      await this.o.compact();
    } catch (err) {
      this.o.logger.warn(`compacting the context failed: ${errorMessage(err)}`);
    }
  }

  /** The status field, or null before the first report. */
  status(): ContextStatus | null {
    const use = this.latest;
    if (!use) return null;
    const share = shareOf(use);
    return {
      used_tokens: use.usedTokens,
      window_tokens: use.windowTokens,
      share: share === null ? null : round(share),
      warn_at: this.o.config.warn_at,
      compact_at: this.o.config.compact_at,
      warnings: this.warnings,
      compactions: this.compactions,
    };
  }

  /** Taps the daemon's hooks: every message's report, the end of each turn, the status. */
  apply(hooks: DaemonHooks): this {
    hooks.agentMessage.tapPromise(PLUGIN_NAME, async (msg) => {
      if (msg.context && isUse(msg.context)) await this.note(msg.context);
    });
    hooks.turnEnd.tapPromise(PLUGIN_NAME, () => this.afterTurn());
    hooks.status.tap(PLUGIN_NAME, (status) => {
      const context = this.status();
      return context ? { ...status, context } : status;
    });
    return this;
  }
}

/** used / window, or null when the window is unknown. */
export function shareOf(use: ContextUse): number | null {
  return use.windowTokens && use.windowTokens > 0 ? use.usedTokens / use.windowTokens : null;
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

function isUse(v: ContextUse): boolean {
  return Number.isFinite(v.usedTokens) && v.usedTokens >= 0 && (v.windowTokens === null || (Number.isFinite(v.windowTokens) && v.windowTokens > 0));
}
