/**
 * Exact-request rules: what an `always` answer saves for a request a glob cannot describe (an
 * MCP tool call, an ACP request of kind `other`). Before issue #24, `always` saved the bare
 * tool name for those, so approving one kind-`other` call of an ACP agent (whose "tool name"
 * was the model's title) allowed every later one. An exact rule names the request's kind, its
 * tool and its whole input in canonical JSON (keys sorted), and covers only a request with the
 * same three:
 *
 *   =mcp:mcp__github__create_issue {"body":"x","title":"y"}
 *
 * A request without structured input (an ACP agent that sends only a title) has no exact rule:
 * `always` then approves it once. The leading `=` keeps these apart from `Name(glob)` patterns,
 * so rules saved by older versions keep loading as they were.
 */
import type { PermissionKind, PermissionRequest } from "./permission-request.js";

/** What starts an exact-request rule. */
export const EXACT_RULE_PREFIX = "=";

/** A parsed exact-request rule. */
export interface ExactRequest {
  kind: PermissionKind;
  tool: string;
  /** The input as canonical JSON. */
  input: string;
}

const KINDS: readonly PermissionKind[] = ["shell", "edit", "read", "fetch", "mcp", "other"];
const RULE = /^=([a-z]+):(\S+) (.+)$/s;

/** True when `source` is written as an exact-request rule (it starts with `=`). */
export function isExactRule(source: string): boolean {
  return source.startsWith(EXACT_RULE_PREFIX);
}

/** The exact rule for `request`, or null when it has no structured input to pin. */
export function exactRequestRule(request: Pick<PermissionRequest, "kind" | "tool" | "input">): string | null {
  if (request.input === undefined || request.input === null) return null;
  if (/[\s\0]/.test(request.tool) || request.tool === "") return null;
  return `${EXACT_RULE_PREFIX}${request.kind}:${request.tool} ${canonicalJson(request.input)}`;
}

/** Why `source` is not a valid exact rule, or null when it is. */
export function exactRuleError(source: string): string | null {
  const m = RULE.exec(source);
  if (!m) return "is not an exact rule: write =<kind>:<tool> <JSON input>";
  if (!KINDS.includes(m[1] as PermissionKind)) return `names an unknown kind ${m[1]} (one of ${KINDS.join(", ")})`;
  try {
    JSON.parse(m[3]!);
  } catch {
    return "has an input that is not JSON";
  }
  return null;
}

/** Parses an exact rule; throws when it is invalid. */
export function parseExactRule(source: string): ExactRequest {
  const error = exactRuleError(source);
  if (error) throw new Error(`invalid exact rule "${source}": ${error}`);
  const m = RULE.exec(source)!;
  return { kind: m[1] as PermissionKind, tool: m[2]!, input: canonicalJson(JSON.parse(m[3]!)) };
}

/** True when `request` is exactly the request `rule` was saved from. */
export function matchesExactRule(rule: ExactRequest, request: Pick<PermissionRequest, "kind" | "tool" | "input">): boolean {
  if (request.kind !== rule.kind || request.tool !== rule.tool) return false;
  if (request.input === undefined || request.input === null) return false;
  return canonicalJson(request.input) === rule.input;
}

/** JSON with object keys sorted at every level, so the same input always gives the same text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value, 0));
}

function sortKeys(value: unknown, depth: number): unknown {
  if (depth > 32 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => sortKeys(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value as Record<string, unknown>).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key], depth + 1);
  return out;
}
