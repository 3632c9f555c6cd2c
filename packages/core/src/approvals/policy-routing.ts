/**
 * Whether a backend routes its agent's tool calls through culture's policy (issue #24). One rule
 * for all four backends, so `deny` holds in every mode: before it, each backend asked culture
 * only when `permissions.mode` was not `bypass`, and with `deny: ["Bash(rm -rf*)"]` and no
 * mode (bypass is the default) `rm -rf` ran.
 *
 * - `ask` (modes `ask` and `allowlist`): the agent asks before its tools and every request goes
 *   to the daemon, which allows, denies or asks an operator.
 * - `deny` (mode `bypass` with `deny` patterns): the agent still runs unattended, but each tool
 *   call goes to the daemon first; the policy denies what a `deny` pattern matches (the reason
 *   reaches the agent as in ask mode) and allows the rest at once. Nobody is ever asked.
 * - `none` (mode `bypass`, no `deny` patterns): nothing to check; the agent asks nobody.
 */
import type { PermissionsConfig } from "../config/schema.js";

/** How a backend routes its agent's requests: see the module comment. */
export type PolicyRouting = "ask" | "deny" | "none";

/** The routing an agent's effective `permissions` call for. */
export function policyRouting(permissions: Pick<PermissionsConfig, "mode" | "deny">): PolicyRouting {
  if (permissions.mode !== "bypass") return "ask";
  return permissions.deny.length > 0 ? "deny" : "none";
}

/** True when the agent's tool calls must reach the daemon (`ask` or `deny` routing). */
export function routesThroughPolicy(permissions: Pick<PermissionsConfig, "mode" | "deny">): boolean {
  return policyRouting(permissions) !== "none";
}
