/**
 * The permission policy as a pure function: given an agent's `permissions:` and its saved
 * `always` rules, what happens to one request. The order is fixed and documented
 * (docs/approvals.md): `deny` first, then protected paths, then `allow`, then the saved rules,
 * then the mode.
 */
import type { PermissionsConfig } from "../config/schema.js";
import { matchesPattern, parsePattern, type PermissionPattern } from "./permission-pattern.js";
import type { PermissionRequest } from "./permission-request.js";
import { unprovenDeny } from "./shell-policy.js";
import { protectedVerdict, type ProtectedHit, type ProtectedPaths } from "./protected-paths.js";

/** What the policy says about one request. */
export type PolicyVerdict =
  | { action: "allow"; /** The pattern that allowed it, or null for mode bypass. */ pattern: string | null; source: "allow" | "rule" | "bypass" }
  | { action: "deny"; reason: string; pattern: string | null }
  | { action: "ask"; /** Set when the request touches a protected path: `always` then approves once and saves nothing. */ protected?: ProtectedHit };

/** A policy with its patterns parsed once. */
export interface CompiledPolicy {
  mode: PermissionsConfig["mode"];
  allow: PermissionPattern[];
  deny: PermissionPattern[];
  /** The agent's protected paths (protected-paths.ts), or null for none (configs built in code, tests). */
  protect: ProtectedPaths | null;
  /** `permissions.protected`: what a request touching one gets in mode ask. */
  protectedAction: "ask" | "deny";
}

/** Parses a policy's patterns (they were validated with the config). */
export function compilePolicy(policy: Pick<PermissionsConfig, "mode" | "allow" | "deny"> & Partial<Pick<PermissionsConfig, "protected">>, protect: ProtectedPaths | null = null): CompiledPolicy {
  return { mode: policy.mode, allow: policy.allow.map(parsePattern), deny: policy.deny.map(parsePattern), protect, protectedAction: policy.protected ?? "ask" };
}

/**
 * Decides one request: a `deny` match denies (naming the pattern), a protected path asks or
 * denies whatever `allow` and the saved rules say ({@link protectedVerdict}), an `allow` match or a saved
 * rule allows, and otherwise the mode decides: `bypass` allows, `allowlist` denies (the reason
 * names the policy so the agent and its operator know why), `ask` asks an operator.
 */
export function evaluatePolicy(policy: CompiledPolicy, rules: readonly PermissionPattern[], request: PermissionRequest, directory: string): PolicyVerdict {
  // A deny pattern that covers the command, or any one of the request's paths, denies it.
  const denied = policy.deny.find((p) => matchesPattern(p, request, directory, "deny") || onePathEach(request).some((r) => matchesPattern(p, r, directory, "deny")));
  if (denied) return { action: "deny", pattern: denied.source, reason: `the permissions.deny pattern ${denied.source} forbids this` };
  // A command that might run what a deny pattern forbids is never allowed by policy (docs/approvals.md).
  const unproven = unprovenDeny(policy.deny, request);
  if (unproven) {
    if (policy.mode === "ask") return { action: "ask" };
    return {
      action: "deny",
      pattern: unproven.pattern,
      reason: `culture cannot tell whether this command runs something the permissions.deny pattern ${unproven.pattern} forbids (${unproven.why}); write it out literally or ask an operator`,
    };
  }
  const hit = policy.protect?.request(request) ?? null;
  if (hit) return protectedVerdict(policy, hit);
  const allowed = policy.allow.find((p) => matchesPattern(p, request, directory));
  if (allowed) return { action: "allow", pattern: allowed.source, source: "allow" };
  const rule = rules.find((p) => matchesPattern(p, request, directory));
  if (rule) return { action: "allow", pattern: rule.source, source: "rule" };
  if (policy.mode === "bypass") return { action: "allow", pattern: null, source: "bypass" };
  if (policy.mode === "allowlist") {
    return {
      action: "deny",
      pattern: null,
      reason: `not allowed: permissions.mode is allowlist and no permissions.allow pattern matches ${request.tool}${request.command !== undefined ? ` (${request.command})` : ""}`,
    };
  }
  return { action: "ask" };
}

/** A request with several paths as one request per path (deny patterns deny when any path matches). */
function onePathEach(request: PermissionRequest): PermissionRequest[] {
  const paths = request.paths ?? [];
  return paths.length > 1 ? paths.map((p) => ({ ...request, paths: [p] })) : [];
}
