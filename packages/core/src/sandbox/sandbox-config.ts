/**
 * The `sandbox:` setting (issue #29), per agent and at the top level: where an agent process and
 * everything it starts run. `none` (the default) is today's behaviour, the agent runs with its
 * owner's rights; `bwrap` runs it in a bubblewrap box (sandbox/bwrap-args.ts); `podman` in a
 * rootless container. Written as a string (`sandbox: bwrap`) or an object
 * (`sandbox: { kind: bwrap, network: off, read_only: [...], read_write: [...] }`).
 */
import { z } from "zod";
import { parseEgressOrigin } from "./egress-origins.js";

const isEgressOrigin = (text: string): boolean => {
  try {
    parseEgressOrigin(text);
    return true;
  } catch {
    return false;
  }
};

/** The values of `sandbox.kind`. */
export const SANDBOX_KINDS = ["none", "bwrap", "podman"] as const;
/** One of {@link SANDBOX_KINDS}. */
export type SandboxKind = (typeof SANDBOX_KINDS)[number];

/** The values of `sandbox.network`. */
export const SANDBOX_NETWORK = ["on", "off"] as const;

/** The Codex backend's own sandbox modes (now its `codex_sandbox` field), named only to point old configs there. */
const CODEX_MODES: readonly string[] = ["read-only", "workspace-write", "danger-full-access"];

/** A path in `read_only` / `read_write`: absolute, `~/...`, or relative to the agent's directory. */
const sandboxPath = z
  .string()
  .min(1, "a path (absolute, ~/..., or relative to the agent's directory)")
  .refine((p) => !/[\0\r\n]/.test(p), "a path without NUL or line breaks");

/** The object form of `sandbox:`. */
export const sandboxObjectSchema = z
  .object({
    kind: z.enum(SANDBOX_KINDS),
    /** `on`: the host's network; `off`: none (only the model API, through culture's bridge). */
    network: z.enum(SANDBOX_NETWORK).default("on"),
    /**
     * `network: off`: more model API origins the agent may reach (URLs or host:port), for base
     * URLs it reads from its own config files (sandbox/egress-origins.ts).
     */
    allow: z.array(z.string().min(1).refine(isEgressOrigin, "a URL (https://host, http://host:port) or host:port")).default([]),
    /** More paths the agent may read (e.g. a shared reference checkout). */
    read_only: z.array(sandboxPath).default([]),
    /** More paths the agent may read and write (e.g. a build cache). */
    read_write: z.array(sandboxPath).default([]),
    /** podman: the image to run (or build from `containerfile`). */
    image: z.string().min(1).nullable().default(null),
    /** podman: a Containerfile to build the image from (named by its content's hash). */
    containerfile: z.string().min(1).nullable().default(null),
  })
  .strict();

/**
 * `sandbox:` as written: `none|bwrap|podman`, or the object form. The string is shorthand for
 * `{ kind: <it> }`, so a wrong kind is reported at `sandbox.kind` with the allowed values.
 */
export const sandboxSchema = z.preprocess((value, ctx) => {
  if (typeof value !== "string") return value;
  if (CODEX_MODES.includes(value)) {
    // Codex's own sandbox mode was `sandbox:` before culture's existed: say where it went.
    ctx.addIssue({ code: "custom", message: `"${value}" is a Codex sandbox mode: write it as codex_sandbox: ${value} (sandbox: is culture's own box: none, bwrap or podman)` });
    return z.NEVER;
  }
  return { kind: value };
}, sandboxObjectSchema);

/** A `sandbox:` setting, defaults filled in. */
export type SandboxConfig = z.infer<typeof sandboxObjectSchema>;

/** `sandbox: none`: no sandbox (the default). */
export const NO_SANDBOX: SandboxConfig = Object.freeze({ kind: "none", network: "on", allow: [], read_only: [], read_write: [], image: null, containerfile: null }) as SandboxConfig;

/** The sandbox an agent runs in: its own `sandbox`, else the config's top-level one, else none. */
export function effectiveSandbox(config: { sandbox?: SandboxConfig | null }, agent: { sandbox?: SandboxConfig | null }): SandboxConfig {
  return agent.sandbox ?? config.sandbox ?? NO_SANDBOX;
}

/** How `culture status` shows a sandbox: its kind and network (`{ kind: "none" }` for none). */
export function sandboxStatus(spec: SandboxConfig): { kind: SandboxKind; network?: "on" | "off" } {
  return spec.kind === "none" ? { kind: "none" } : { kind: spec.kind, network: spec.network };
}
