/**
 * Which IPC request may arrive on which of a daemon's two sockets. The agent runs as its owner,
 * so an owner-only 0600 socket does not keep the agent out: the daemon answers the agent's IRC
 * tools on the **tools socket** (`<runtime>/culture-<nick>.sock`, the reference path every skill
 * client uses) and the owner's control commands only on the **control socket**
 * (`<state dir>/control.sock`, each request carrying the token in `<state dir>/control.token`).
 * docs/security.md has the table.
 *
 * Every type is classified here once. A control type on the tools socket is refused with the
 * command the owner runs instead; any type whose name starts with `approval` counts as control,
 * so a new approvals command is never answered to the agent by accident.
 */
import type { IpcRequest, IpcResult } from "../events.js";
import { IRC_COMMANDS } from "../irc-commands/catalogue.js";

/** The agent's IRC tools (the catalogue's commands, irc-commands/catalogue.ts): answered on the tools socket. */
export const TOOLS_IPC_TYPES: readonly string[] = IRC_COMMANDS.map((c) => c.ipcType);

/** The owner's commands: answered only on the control socket, with its token. */
export const CONTROL_IPC_TYPES = ["approvals", "approval_answer", "approval_revoke", "pause", "resume", "abort", "shutdown", "budget", "schedules", "schedule_run", "schedule_pause", "schedule_resume", "events"] as const;

/** Answered on both sockets: the owner's CLI polls status on the control socket too. */
const SHARED = new Set<string>(["status"]);

const TOOLS = new Set<string>(TOOLS_IPC_TYPES);
const CONTROL = new Set<string>(CONTROL_IPC_TYPES);

/** True for an owner's control command (including any `approval*` or `schedule*` type). */
export function isControlType(type: string): boolean {
  return CONTROL.has(type) || type.startsWith("approval") || type.startsWith("schedule");
}

/** What the owner runs instead, for the refusal on the tools socket. */
function ownerCommand(type: string, nick: string): string {
  switch (type) {
    case "pause":
      return `culture pause ${nick}`;
    case "resume":
      return `culture resume ${nick}`;
    case "shutdown":
      return `culture stop ${nick}`;
    case "budget":
      return `culture budget show|raise|reset ${nick}`;
    case "abort":
      return `culture top (key a on ${nick})`;
    case "events":
      return "culture console";
    default:
      if (type.startsWith("schedule")) return `culture schedule list ${nick}`;
      return "culture approvals";
  }
}

/** The refusal of a control command that came in on the tools socket. */
export function controlOnToolsSocket(type: string, nick: string): IpcResult {
  return {
    ok: false,
    error:
      `'${type}' is an owner's control command, and this is agent ${nick}'s tools socket: an agent cannot answer ` +
      `or list approvals, pause, resume or stop itself, or change its budget. Run ${ownerCommand(type, nick)} from your own shell (not the agent's).`,
  };
}

/** The refusal of one of the agent's IRC tools that came in on the control socket. */
export function toolOnControlSocket(type: string, toolsSocket: string): IpcResult | null {
  if (!TOOLS.has(type) || SHARED.has(type)) return null;
  return { ok: false, error: `'${type}' is one of the agent's IRC tools: send it to the tools socket ${toolsSocket}, not the control socket` };
}

/** The request without its `token` field (so a handler or a hook never sees, logs or echoes it). */
export function withoutToken(req: IpcRequest): IpcRequest {
  if (!("token" in req)) return req;
  const { token: _token, ...rest } = req;
  return rest as IpcRequest;
}
