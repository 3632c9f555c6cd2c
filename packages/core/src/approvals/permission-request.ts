/**
 * The contract between a runner and the daemon for an agent's permission requests. A backend
 * turns its agent's own request (Claude's `canUseTool`, a Codex app-server approval request,
 * ACP `session/request_permission`, Copilot's permission handler) into a
 * {@link PermissionRequest}, calls `RunnerContext.requestPermission`, and answers its agent
 * with the {@link PermissionDecision} it gets back. The daemon applies the agent's
 * `permissions:` policy and, when the policy says ask, waits for an operator on IRC.
 */

/** What kind of action an agent asks to take. Policy patterns match on it as well as on the tool name. */
export type PermissionKind = "shell" | "edit" | "read" | "fetch" | "mcp" | "irc" | "other";

/** One request from the agent to use a tool. */
export interface PermissionRequest {
  /**
   * The tool's name as the agent calls it (`Bash`, `Edit`, `exec_command`, `shell`, ...), taken
   * only from a field the agent sets, never from text the model writes: an ACP agent's requests
   * are named after their ACP kind (`execute`, `edit`, `other`), since ACP's titles and call ids
   * come from the model. Patterns naming a kind (`Read`, `Bash`) match the `kind`, not this.
   */
  tool: string;
  /** What the tool does, so one policy pattern (`Bash(npm test*)`) covers every agent. */
  kind: PermissionKind;
  /** The command line, for `shell`. */
  command?: string;
  /** The files concerned (absolute or relative to the agent's directory), for `edit` and `read`. */
  paths?: string[];
  /** The URL, for `fetch`. */
  url?: string;
  /**
   * The IRC target (channel or nick), for `irc`: culture's own IRC tools sending somewhere other
   * than where the task came from (tool `IrcSend`, see daemon/irc-send-gate.ts).
   */
  target?: string;
  /** One line for humans from the backend, e.g. `run: npm publish --tag next`. Not yet shortened or masked. */
  summary: string;
  /** The tool input as the agent gave it, for logs and the webhook (the daemon masks secrets). */
  input?: unknown;
  /** Aborted when the agent withdraws the request (turn cancelled, request resolved elsewhere). */
  signal?: AbortSignal;
}

/** Who decided: `policy` (allow/deny list, saved rule, bypass, or a cancelled request), `timeout`, `local` (the CLI), `agent` (it withdrew the request), or an operator's IRC account. */
export type PermissionDecider = string;

/** The daemon's answer to one {@link PermissionRequest}. */
export type PermissionDecision =
  | {
      behavior: "allow";
      /** `always`: an operator added the request's pattern to the agent's allowlist; the backend may tell its agent so. */
      scope: "once" | "always";
      by: PermissionDecider;
    }
  | {
      behavior: "deny";
      /** Why, in words the agent can act on (the operator's reason, or culture's). Always non-empty. */
      reason: string;
      by: PermissionDecider;
    };
