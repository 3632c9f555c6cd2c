/**
 * The `trigger:` of an agent entry (docs/schedules.md "Triggers"): an HTTP endpoint the agent's
 * daemon serves so another program (CI, a monitor) can prompt the agent, each request signed
 * with the agent's own secret, and the trigger file in the agent's state folder.
 */
import { z } from "zod";

/** One agent's trigger settings. */
export const triggerSchema = z
  .object({
    /** The shared secret requests are signed with (HMAC-SHA256); use `${ENV_VAR}`. At least 16 characters. */
    secret: z.string().min(16, "at least 16 characters (use a long random string, e.g. from openssl rand -hex 32)").nullable().default(null),
    /** Where the daemon listens. 127.0.0.1 by default: put a reverse proxy with TLS in front to accept requests from elsewhere. */
    host: z.string().min(1).default("127.0.0.1"),
    /** The TCP port; 0 picks a free one (status shows it). */
    port: z.number().int().min(0).max(65535).default(0),
    /** Where the reply goes: one of the agent's channels, or a nick. Default: the agent's first channel. */
    channel: z.string().min(1).nullable().default(null),
    /** A request's timestamp may be this far from the daemon's clock (and a signature is remembered this long, so it is accepted once). */
    window_seconds: z.number().int().min(1).max(3600).default(300),
    /** Larger request bodies are refused (413). */
    max_body_bytes: z.number().int().min(64).max(1_048_576).default(16_384),
    /** Prompts per minute from the endpoint and the file together; more get 429. */
    per_minute: z.number().int().min(1).default(10),
    /** Watch `<state dir>/tick_trigger`: its content becomes a prompt, and the file is consumed. */
    file: z.boolean().default(true),
  })
  .strict();

/** An agent's trigger settings, defaults filled in. */
export type TriggerConfig = z.infer<typeof triggerSchema>;
