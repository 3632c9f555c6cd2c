/**
 * The agent-entry fields the Copilot backend adds to agents.yaml, validated by
 * {@link copilotOptionsSchema} (strict, so a typo such as `executible` is reported).
 */
import { z } from "zod";

/**
 * Bring your own key: the model provider the runtime calls instead of GitHub Copilot's API
 * (an OpenAI-compatible server, Azure OpenAI, Anthropic, a local model server). With a
 * provider no GitHub sign-in is needed or used. `api_key` is usually `${ENV_VAR}` (agents.yaml
 * interpolates it when it is loaded).
 */
export const copilotProviderSchema = z
  .object({
    /** The API family. Default `openai` (any OpenAI-compatible server). */
    type: z.enum(["openai", "azure", "anthropic"]).default("openai"),
    /** openai/azure only: `completions` (POST /chat/completions, the default) or `responses` (POST /responses). */
    wire_api: z.enum(["completions", "responses"]).default("completions"),
    /** The API's base URL, including the version path: `http://127.0.0.1:11434/v1`. */
    base_url: z
      .string()
      .url()
      .refine((url) => /^https?:\/\//i.test(url), "must be an http:// or https:// URL, e.g. http://127.0.0.1:11434/v1"),
    /** The API key (sent as the provider expects it). Optional for local servers without auth. */
    api_key: z.string().min(1).nullable().default(null),
    /** A bearer token to send instead of the API key (`Authorization: Bearer ...`). */
    bearer_token: z.string().min(1).nullable().default(null),
  })
  .strict();

/** The Copilot backend's fields of an agent entry. */
export const copilotOptionsSchema = z
  .object({
    /**
     * The Copilot runtime to run: a path (relative to the agent's directory), or a command
     * name looked up on PATH (`copilot`). Null: `COPILOT_CLI_PATH`, else the SDK's bundled
     * runtime, else `copilot` on PATH.
     */
    executable: z.string().min(1).nullable().default(null),
    /** Extra environment variables for the runtime process (merged over the daemon's). */
    env: z.record(z.string(), z.string()).default({}),
    /** Bring your own key: the model API to use instead of GitHub Copilot's (null: Copilot's, signed in). */
    provider: copilotProviderSchema.nullable().default(null),
  })
  .strict();

/** The parsed Copilot fields of an agent entry. */
export type CopilotOptions = z.output<typeof copilotOptionsSchema>;

/** The parsed `provider:` field. */
export type CopilotProvider = z.output<typeof copilotProviderSchema>;
