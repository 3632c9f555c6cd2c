/**
 * The zod schema of agents.yaml (DESIGN.md section 3). The specification's format is accepted
 * as is; everything culture adds has a default. Agent entries keep unknown keys: those are the
 * backend's own fields, validated later by the backend's `configSchema`.
 */
import { z } from "zod";
import { patternError } from "../approvals/permission-pattern.js";
import { CONFIG_CHANNEL_NAME } from "../irc/sanitize.js";
import { agentBudgetSchema, budgetSchema, type BudgetCapsConfig, type BudgetConfig } from "../budget/budget-schema.js";
import { pricesSchema, type PricesConfig } from "../usage/prices.js";
import { schedulesSchema, type ScheduleConfig } from "./schedule-schema.js";
import { contextSchema, type ContextConfig } from "./context-schema.js";
import { triggerSchema, type TriggerConfig } from "./trigger-schema.js";
import { scriptsSchema, type ScriptsConfig } from "./scripts-schema.js";
import { sandboxSchema, type SandboxConfig } from "../sandbox/sandbox-config.js";
import { mirrorSchema, type MirrorConfig } from "./mirror-schema.js";

/** Thinking / reasoning levels. */
export const THINKING_LEVELS = ["none", "low", "medium", "high", "max"] as const;
/** A thinking / reasoning level. */
export type Thinking = (typeof THINKING_LEVELS)[number];

/** The alert events: the specification's five, then approvals' (docs/approvals.md). */
export const ALERT_EVENTS = [
  "agent_spiraling",
  "agent_error",
  "agent_question",
  "agent_timeout",
  "agent_complete",
  "approval_requested",
  "approval_resolved",
  // Budgets (docs/budgets.md): 50 and 80 % of a cap, and a cap reached.
  "budget_warning",
  "budget_exceeded",
] as const;
/**
 * The events that fire when `webhooks.events` is not set: all but `approval_resolved`. A
 * request needs a person (like `agent_question`); its result is already posted where it was
 * asked, so it is opt-in.
 */
export const DEFAULT_ALERT_EVENTS: readonly AlertEvent[] = ALERT_EVENTS.filter((e) => e !== "approval_resolved");
/** One alert event. */
export type AlertEvent = (typeof ALERT_EVENTS)[number];

const channelName = z.string().regex(CONFIG_CHANNEL_NAME, "a channel name like #general (starts with # or &, no spaces or commas)");
const nullableString = z.string().nullable().default(null);

export const serverSchema = z
  .object({
    name: z.string().regex(/^[A-Za-z0-9_]+$/, "letters, digits or _ (the <server> part of every nick)").optional(),
    host: z.string().min(1).default("localhost"),
    port: z.number().int().min(1).max(65535).default(6667),
    tls: z.boolean().default(false),
    /** Verify the server's TLS certificate. */
    tls_verify: z.boolean().default(true),
    password: nullableString,
    /**
     * For the embedded server (`culture server start`): let clients connect without an account.
     * Off by default: every client logs in (agents with generated credentials).
     */
    open: z.boolean().optional(),
    sasl: z
      .object({ account: z.string().min(1), password: z.string().min(1) })
      .strict()
      .nullable()
      .default(null),
  })
  .strict();

export const supervisorSchema = z
  .object({
    agent: z.string().min(1).nullable().default(null),
    model: nullableString,
    thinking: z.enum(THINKING_LEVELS).default("medium"),
    window_size: z.number().int().min(1).default(20),
    eval_interval: z.number().int().min(1).default(5),
    escalation_threshold: z.number().int().min(2).default(3),
    prompt_override: nullableString,
    command: z.array(z.string().min(1)).nonempty().nullable().default(null),
    /** Seconds one evaluation may take before it is abandoned. */
    timeout_seconds: z.number().positive().default(120),
    /** Seconds without agent output during a turn before STALLING is raised. */
    stall_seconds: z.number().positive().default(600),
    /** Minutes without reading channels before the advisory check-in whisper. */
    checkin_minutes: z.number().positive().default(15),
  })
  .strict();

export const webhooksSchema = z
  .object({
    url: z.string().url().nullable().default(null),
    irc_channel: channelName.default("#alerts"),
    secret: nullableString,
    events: z.array(z.enum(ALERT_EVENTS)).default([...DEFAULT_ALERT_EVENTS]),
    /** Seconds before an HTTP POST is abandoned. */
    timeout_seconds: z.number().positive().default(10),
  })
  .strict();

export const restartSchema = z
  .object({
    delay_seconds: z.number().min(0).default(5),
    max_crashes: z.number().int().min(1).default(3),
    window_seconds: z.number().positive().default(300),
  })
  .strict();

/**
 * Catch-up (docs/irc-transport.md "Catch-up"): mentions the server's history gives back after
 * a reconnect or a restart of the daemon that are older than `max_age_seconds` go to the
 * buffer but are not turned into prompts, so an agent started after a week does not work
 * through a week of stale requests. 0: no caught-up mention becomes a prompt.
 */
export const catchUpSchema = z
  .object({
    max_age_seconds: z.number().int().min(0).default(86_400),
  })
  .strict();

/**
 * Who may prompt an agent (`allow:`): `everyone`; `accounts` (anyone logged in to an IRC
 * account); a list of account names; or `auto` (the default): `accounts` when the server has
 * accounts (offers SASL, as culture's embedded server does), `everyone` when it has none.
 */
/** Presence on IRC (docs/presence.md): the machine-readable channel and how often it is updated. */
export const presenceSchema = z
  .object({
    /** The channel every agent joins and posts its presence line in; null: AWAY only. */
    channel: channelName.nullable().default("#culture-presence"),
    /** At most one update per this many seconds; changes in between are coalesced into the latest. */
    min_interval_seconds: z.number().min(0).default(2),
    /** The presence line is posted again after this many seconds without a change. */
    heartbeat_seconds: z.number().positive().default(60),
  })
  .strict();

export const allowSchema = z.union([
  z.enum(["auto", "everyone", "accounts"]),
  z.array(z.string().min(1).regex(/^[^\s,]+$/, "an IRC account name (no spaces or commas)")).nonempty(),
]);
/** A parsed `allow:` value. */
export type Allow = z.infer<typeof allowSchema>;
/** One permission pattern (`Read`, `Bash(npm test*)`): an invalid one is a config error at its key path. */
const permissionPattern = z.string().superRefine((value, ctx) => {
  const error = patternError(value);
  if (error) ctx.addIssue({ code: "custom", message: `invalid permission pattern "${value}": ${error} (write Name or Name(glob), e.g. Read, Bash(npm test*), Edit(src/**))` });
});
/** The values of `permissions.mode`. */
export const PERMISSION_MODES = ["bypass", "ask", "allowlist"] as const;
/**
 * An agent's permission policy (`permissions:`): `bypass` lets the agent use every tool (as
 * before approvals existed; the default when a config has no `permissions`); `ask` allows
 * what `allow` matches, denies what `deny` matches, and asks an operator on IRC for the rest;
 * `allowlist` allows what `allow` matches and denies the rest without asking.
 */
export const permissionsSchema = z
  .object({
    mode: z.enum(PERMISSION_MODES).default("bypass"),
    /** Patterns over tool names and commands/paths, e.g. `Read`, `Bash(npm test*)`, `Edit(src/**)`. */
    allow: z.array(permissionPattern).default([]),
    /** Patterns that are always denied (checked before `allow`). */
    deny: z.array(permissionPattern).default([]),
    /** Seconds a request waits for an operator before `on_timeout` applies. */
    timeout_seconds: z.number().positive().default(600),
    on_timeout: z.enum(["deny", "allow"]).default("deny"),
    /** A request touching a protected path (approvals/protected-paths.ts) is asked (mode ask) or denied; never allowed by a pattern or rule. */
    protected: z.enum(["ask", "deny"]).default("ask"),
    /** More protected paths: absolute, `~/...`, or relative to the agent's directory. */
    protected_paths: z.array(z.string().min(1)).default([]),
  })
  .strict();
/** A permission policy, defaults filled in. */
export type PermissionsConfig = z.infer<typeof permissionsSchema>;

/** The values of an agent's `irc_tools`. */
export const IRC_TOOLS_MODES = ["mcp", "cli", "both"] as const;
/** How an agent talks on IRC (see {@link IRC_TOOLS_MODES}). */
export type IrcToolsMode = (typeof IRC_TOOLS_MODES)[number];

/**
 * How the daemon acknowledges a line addressed to an agent: `auto` (IRCv3 reactions where the
 * server relays client tags, a short NOTICE to the sender otherwise), `notice` (always the
 * NOTICE), `off` (no acknowledgements; failure lines still reach the asker).
 */
export const RECEIPT_MODES = ["auto", "notice", "off"] as const;
/** One of {@link RECEIPT_MODES}. */
export type ReceiptMode = (typeof RECEIPT_MODES)[number];

/** The fields every agent entry has, whatever its backend. */
export const agentCommonShape = {
  nick: z.string().min(1),
  agent: z.string().min(1).default("claude"),
  directory: z.string().min(1).default("."),
  channels: z.array(channelName).default(["#general"]),
  model: z.string().min(1).nullable().default(null),
  thinking: z.enum(THINKING_LEVELS).default("medium"),
  tags: z.array(z.string()).default([]),
  system_prompt: nullableString,
  relay: z.enum(["auto", "always", "never"]).default("auto"),
  turn_timeout_seconds: z.number().positive().default(600),
  /** Who may prompt this agent; null: the top-level `allow`. */
  allow: allowSchema.nullable().default(null),
  /** How the agent talks on IRC: the `culture` MCP tools, the `culture channel` shell command, or both. */
  irc_tools: z.enum(IRC_TOOLS_MODES).default("both"),
  /** This agent's permission policy; null: the top-level `permissions`. */
  permissions: permissionsSchema.nullable().default(null),
  /** How addressed lines are acknowledged (daemon/receipts.ts); null: the top-level `receipts`. */
  receipts: z.enum(RECEIPT_MODES).nullable().default(null),
  /** This agent's spending cap(s) (budget/budget-schema.ts); null: none of its own. */
  budget: agentBudgetSchema,
  /** Prompts the daemon sends on its own, by cron or once (config/schedule-schema.ts). */
  schedules: schedulesSchema.default([]),
  /** An HTTP endpoint and a file that prompt the agent (config/trigger-schema.ts); null: none. */
  trigger: triggerSchema.nullable().default(null),
  /** Programs run before and after each turn and before stop (config/scripts-schema.ts); null: none. */
  scripts: scriptsSchema.nullable().default(null),
  /** Where the agent process runs (sandbox/sandbox-config.ts); null: the top-level `sandbox`. */
  sandbox: sandboxSchema.nullable().default(null),
  /** Seconds without an agent event during a turn before the agent counts as stalled (docs/presence.md); null: min(300, turn_timeout_seconds / 2). */
  stall_seconds: z.number().positive().nullable().default(null),
  /** The activity mirror (config/mirror-schema.ts); null: the top-level `mirror`. */
  mirror: mirrorSchema.nullable().default(null),
  /** Context care (config/context-schema.ts); null: the top-level `context`. */
  context: contextSchema.nullable().default(null),
};
/** The keys every agent entry may have; anything else belongs to the backend. */
export const AGENT_COMMON_KEYS = Object.keys(agentCommonShape);

export const agentSchema = z
  .object(agentCommonShape)
  .passthrough()
  .superRefine((a, ctx) => {
    // A schedule's reply goes to a channel the agent is in (or to a nick).
    a.schedules.forEach((s, i) => {
      if (s.channel && /^[#&]/.test(s.channel) && !a.channels.some((c) => c.toLowerCase() === s.channel!.toLowerCase()))
        ctx.addIssue({ code: "custom", path: ["schedules", i, "channel"], message: `${s.channel} is not one of this agent's channels (${a.channels.join(", ")}): add it to channels:` });
    });
    const tc = a.trigger?.channel;
    if (tc && /^[#&]/.test(tc) && !a.channels.some((c) => c.toLowerCase() === tc.toLowerCase()))
      ctx.addIssue({ code: "custom", path: ["trigger", "channel"], message: `${tc} is not one of this agent's channels (${a.channels.join(", ")}): add it to channels:` });
  });

export const configSchema = z
  .object({
    server: serverSchema.prefault({}),
    supervisor: supervisorSchema.nullable().default(null),
    webhooks: webhooksSchema.prefault({}),
    buffer_size: z.number().int().min(1).default(500),
    /** IRC accounts allowed to resume/abort agents from IRC (none: nobody on IRC; the local CLI always can). */
    operators: z.array(z.string().min(1)).default([]),
    /**
     * Also accept `operators` entries by nick when a message carries no account. Only for a
     * server without accounts, where anyone can take any nick: `culture doctor` warns.
     */
    operators_by_nick: z.boolean().default(false),
    /** Who may prompt agents (an agent's own `allow` wins). */
    allow: allowSchema.default("auto"),
    /** The permission policy of agents that have none of their own. */
    permissions: permissionsSchema.prefault({}),
    /** How addressed lines are acknowledged for agents that do not say (daemon/receipts.ts). */
    receipts: z.enum(RECEIPT_MODES).default("auto"),
    /** Where agents that do not say run (sandbox/sandbox-config.ts): `none` by default. */
    sandbox: sandboxSchema.prefault("none"),
    restart: restartSchema.prefault({}),
    catch_up: catchUpSchema.prefault({}),
    /** Spending caps for channels, accounts and the whole home, their time zone, the chain cap (budget/budget-schema.ts). */
    budget: budgetSchema.prefault({}),
    presence: presenceSchema.prefault({}),
    /** The activity mirror of agents that do not say (config/mirror-schema.ts); null: none. */
    mirror: mirrorSchema.nullable().default(null),
    /** Context care for agents that do not say (config/context-schema.ts). */
    context: contextSchema.prefault({}),
    plugins: z.array(z.string().min(1)).default([]),
    /** USD per million tokens per model, for agents that report no cost (usage/prices.ts). */
    prices: pricesSchema.default({}),
    agents: z.array(agentSchema).default([]),
  })
  .strict();

/** The server section, defaults filled in. */
export type ServerConfig = z.infer<typeof serverSchema>;
/** The supervisor section, defaults filled in. */
export type SupervisorConfig = z.infer<typeof supervisorSchema>;
/** The webhooks section, defaults filled in. */
export type WebhooksConfig = z.infer<typeof webhooksSchema>;
/** The restart section, defaults filled in. */
export type RestartConfig = z.infer<typeof restartSchema>;
/** The presence section, defaults filled in. */
export type PresenceConfig = z.infer<typeof presenceSchema>;
/** The catch_up section, defaults filled in. */
export type CatchUpConfig = z.infer<typeof catchUpSchema>;

/** One agent entry after loading: the common fields, and the backend's own fields in `options`. */
export interface AgentConfig {
  nick: string;
  agent: string;
  /** Absolute: relative directories are resolved against the config file's folder. */
  directory: string;
  channels: string[];
  model: string | null;
  thinking: Thinking;
  tags: string[];
  system_prompt: string | null;
  relay: "auto" | "always" | "never";
  turn_timeout_seconds: number;
  /** Who may prompt this agent; null or absent: the config's top-level `allow`. */
  allow?: Allow | null;
  /** `mcp`: the `culture` MCP tools; `cli`: `culture channel` in the shell; `both` (default). */
  irc_tools: IrcToolsMode;
  /** This agent's permission policy; null or absent: the config's top-level `permissions`. */
  permissions?: PermissionsConfig | null;
  /** How addressed lines are acknowledged; null or absent: the config's top-level `receipts`. */
  receipts?: ReceiptMode | null;
  /** This agent's spending cap(s); null or absent: none. */
  budget?: BudgetCapsConfig | null;
  /** Prompts the daemon sends on its own; absent in configs built in code: none. */
  schedules?: ScheduleConfig[];
  /** The HTTP trigger and trigger file; absent or null: none. */
  trigger?: TriggerConfig | null;
  /** Lifecycle scripts; absent or null: none. */
  scripts?: ScriptsConfig | null;
  /** Where the agent process runs; null or absent: the config's top-level `sandbox`. */
  sandbox?: SandboxConfig | null;
  /** Seconds without an agent event during a turn before it counts as stalled; null or absent: the default. */
  stall_seconds?: number | null;
  /** The activity mirror; null or absent: the config's top-level `mirror`. */
  mirror?: MirrorConfig | null;
  /** Context care; null or absent: the config's top-level `context`. */
  context?: ContextConfig | null;
  /** The entry's backend-specific fields, as written (validated by the backend's configSchema). */
  options: Record<string, unknown>;
}

/** The whole loaded config, defaults filled in. */
export interface CultureConfig {
  server: ServerConfig;
  supervisor: SupervisorConfig | null;
  webhooks: WebhooksConfig;
  buffer_size: number;
  operators: string[];
  /** Absent in configs built in code: false. */
  operators_by_nick?: boolean;
  /** Absent in configs built in code: "auto". */
  allow?: Allow;
  /** Absent in configs built in code: mode `bypass`. */
  permissions?: PermissionsConfig;
  /** Absent in configs built in code: `auto`. */
  receipts?: ReceiptMode;
  /** Absent in configs built in code: `none`. */
  sandbox?: SandboxConfig;
  restart: RestartConfig;
  /** Absent in configs built in code: a maximum age of one day. */
  catch_up?: CatchUpConfig;
  /** Absent in configs built in code: no caps. */
  budget?: BudgetConfig;
  /** Absent in configs built in code: the defaults of {@link presenceSchema}. */
  presence?: PresenceConfig;
  /** Absent in configs built in code: no mirror. */
  mirror?: MirrorConfig | null;
  /** Absent in configs built in code: warn at 70 %, never compact. */
  context?: ContextConfig;
  plugins: string[];
  /** Absent in configs built in code: no prices. */
  prices?: PricesConfig;
  agents: AgentConfig[];
  /** The absolute path of the file this config was loaded from (null when built in code). */
  filepath: string | null;
}
