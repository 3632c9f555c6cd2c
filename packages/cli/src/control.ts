/**
 * The owner's control path to a daemon: `culture approvals`, `pause`, `resume` and `stop` send
 * their requests here, never on the agent's tools socket (which refuses them). A request goes
 * to the daemon's control socket (`<state dir>/control.sock`) carrying the token the daemon
 * wrote to `<state dir>/control.token`; docs/security.md explains who can do what.
 *
 * In an agent's environment (CULTURE_NICK is set: the daemon sets it for its agent) these
 * commands are refused before anything is read, so an agent that runs `culture approvals
 * approve` gets the error naming what to do instead, not its owner's powers.
 */
import { existsSync } from "node:fs";
import { controlFromAgent, controlSocketPath, controlTokenPath, readControlToken } from "@culture/core/config";
import { requestSocket, type AgentReply } from "./agents.js";

/** Throws E_CONTROL_FROM_AGENT when this process runs in an agent's environment. */
export function assertOwnerShell(command: string, env: NodeJS.ProcessEnv = process.env): void {
  const nick = env.CULTURE_NICK;
  if (nick !== undefined) throw controlFromAgent(command, nick);
}

/**
 * Sends one control request to a daemon with a short timeout. Not running (no token and no
 * control socket, or a socket nobody answers on): `running: false`. A control socket without
 * a readable token: an answer saying so.
 */
export async function controlAgent(nick: string, type: string, fields: Record<string, unknown> = {}, timeoutMs = 1500, command = commandFor(type)): Promise<AgentReply> {
  assertOwnerShell(command);
  const socket = controlSocketPath(nick);
  const tokenFile = controlTokenPath(nick);
  const token = readControlToken(tokenFile);
  if (token === null) {
    if (!existsSync(socket)) return { running: false, ok: false, data: null, error: `no control socket at ${socket}`, errorCode: "E_NOT_RUNNING" };
    return { running: true, ok: false, data: null, error: `no readable control token in ${tokenFile} (only the agent's owner can read it; is the daemon starting?)`, errorCode: null };
  }
  return requestSocket(socket, type, { ...fields, token }, timeoutMs);
}

function commandFor(type: string): string {
  if (type === "pause" || type === "resume") return `culture ${type}`;
  if (type === "shutdown") return "culture stop";
  return "culture approvals";
}

/**
 * True when the agent answered ok; otherwise prints why on stderr and sets the exit code. An
 * agent that is not running is only an error when it was asked for by name (`named`).
 */
export function replyOk(nick: string, reply: AgentReply, named = true): boolean {
  if (!reply.running) {
    if (named) {
      process.stderr.write(`${nick} is not running\n`);
      process.exitCode = 1;
    }
    return false;
  }
  if (!reply.ok) {
    process.stderr.write(`${nick}: ${reply.error}\n`);
    process.exitCode = 1;
    return false;
  }
  return true;
}
