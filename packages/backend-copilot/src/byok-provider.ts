/**
 * Bring your own key: the agent entry's `provider:` as the SDK's session option. The runtime
 * does not save the provider with the session, so it goes into every `createSession` AND
 * every `resumeSession` (without it a resumed BYOK session fails with "No GitHub OAuth token
 * or Copilot HMAC key provided"). A BYOK client must not use the logged-in GitHub user, and
 * the Responses wire API only works with streaming on: both are set here, in one place.
 */
import { CultureError } from "@culture/core";
import type { CopilotClientOptions, ProviderConfig, SessionConfig } from "@github/copilot-sdk";
import type { CopilotOptions, CopilotProvider } from "./copilot-options.js";

/** The SDK's ProviderConfig for the `provider:` field. */
export function toProviderConfig(provider: CopilotProvider): ProviderConfig {
  return {
    type: provider.type,
    ...(provider.type === "anthropic" ? {} : { wireApi: provider.wire_api }),
    baseUrl: provider.base_url,
    ...(provider.api_key ? { apiKey: provider.api_key } : {}),
    ...(provider.bearer_token ? { bearerToken: provider.bearer_token } : {}),
  };
}

/** The client options a BYOK agent needs (none without a provider). */
export function byokClientOptions(options: Pick<CopilotOptions, "provider">): Pick<CopilotClientOptions, "useLoggedInUser"> {
  return options.provider ? { useLoggedInUser: false } : {};
}

/** The session options a BYOK agent needs, for createSession and resumeSession alike (none without a provider). */
export function byokSessionOptions(options: Pick<CopilotOptions, "provider">): Pick<SessionConfig, "provider" | "streaming"> {
  return options.provider ? { provider: toProviderConfig(options.provider), streaming: true } : {};
}

/**
 * E_AGENT_AUTH for a provider that refused the key (HTTP 401/403): the fix is the key in
 * agents.yaml, not a GitHub sign-in. `detail` is the runtime's own words.
 */
export function providerAuthRefused(command: readonly string[], provider: CopilotProvider, detail: string): CultureError {
  return new CultureError(
    "E_AGENT_AUTH",
    `The model provider at ${provider.base_url} refused the agent's key: ${detail.split("\n")[0]}\n` +
      `Fix provider.api_key (or provider.bearer_token) of this agent in agents.yaml (if it is \${ENV_VAR}, that variable ` +
      `in the daemon's environment), then resume the agent: culture resume <nick>, or "@<nick> resume" from an operator.`,
    { cause: new Error(detail), details: { command: [...command], configKey: "provider.api_key" } },
  );
}
