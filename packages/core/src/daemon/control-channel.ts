/**
 * The daemon's control channel: a second IPC socket in the agent's state folder
 * (`<state dir>/control.sock`) plus a per-daemon random token (`<state dir>/control.token`,
 * 0600) that every request on it must carry. The owner's CLI reads the token and connects; the
 * agent is never handed either (see ipc-access.ts for what is answered where).
 *
 * It starts after the tools socket (which decides single-instance), so a stale control socket
 * left by a killed daemon is ours to replace, and the token is written only by the daemon that
 * won. It stops with it, removing both files if they are still its own.
 */
import { existsSync, unlinkSync } from "node:fs";
import { errorMessage } from "../errors.js";
import type { IpcRequest, IpcResult } from "../events.js";
import { controlTokenMatches, newControlToken, removeControlToken, writeControlToken } from "../ipc/control-token.js";
import { IpcServer } from "../ipc/ipc-server.js";
import type { Logger } from "../logger.js";
import { controlSocketPath, controlTokenPath, ensureAgentStateDir } from "../paths.js";
import { withoutToken } from "./ipc-access.js";

/** Options of {@link ControlChannel}. */
export interface ControlChannelOptions {
  nick: string;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /** Answers a request whose token matched (the token already removed from it). */
  handler(req: IpcRequest): Promise<IpcResult>;
}

/** The control socket and its token file. */
export class ControlChannel {
  /** `<state dir>/control.sock`. */
  readonly socketPath: string;
  /** `<state dir>/control.token`. */
  readonly tokenPath: string;
  private readonly token = newControlToken();
  private server: IpcServer | null = null;

  constructor(private readonly o: ControlChannelOptions) {
    this.socketPath = controlSocketPath(o.nick, o.env);
    this.tokenPath = controlTokenPath(o.nick, o.env);
  }

  /** Creates the state folder (0700), replaces a stale socket file, listens, then writes the token. */
  async start(): Promise<void> {
    ensureAgentStateDir(this.o.nick, this.o.env);
    if (existsSync(this.socketPath)) {
      this.o.logger.info("replacing a stale control socket file", { path: this.socketPath });
      try {
        unlinkSync(this.socketPath);
      } catch {
        /* already gone */
      }
    }
    const server = new IpcServer({ path: this.socketPath, handler: (req) => this.answer(req), logger: this.o.logger, env: this.o.env });
    await server.start();
    this.server = server;
    writeControlToken(this.tokenPath, this.token);
    this.o.logger.debug("control socket listening", { path: this.socketPath, token_file: this.tokenPath });
  }

  /** Stops listening; removes the socket and the token file if they are still ours. */
  async stop(): Promise<void> {
    removeControlToken(this.tokenPath, this.token);
    const server = this.server;
    this.server = null;
    await server?.stop();
  }

  private async answer(req: IpcRequest): Promise<IpcResult> {
    if (!controlTokenMatches(this.token, req.token)) {
      this.o.logger.warn("refused a control request without the right token", { type: req.type });
      return {
        ok: false,
        error:
          `the control socket of agent ${this.o.nick} needs the daemon's control token (in ${this.tokenPath}, readable by its owner only). ` +
          "Run culture approvals, pause, resume or stop from your own shell.",
      };
    }
    try {
      return await this.o.handler(withoutToken(req));
    } catch (err) {
      return { ok: false, error: errorMessage(err) };
    }
  }
}
