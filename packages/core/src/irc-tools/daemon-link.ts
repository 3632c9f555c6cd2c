/**
 * The MCP server's one long-lived connection to its agent's daemon. It connects lazily,
 * notices when the daemon went away (the socket closed) and reconnects on the next call, so a
 * daemon restart under a live MCP session costs one failed-then-retried connect, not a dead
 * server. Its requests say `whispers: "pull"`: the daemon never pushes a whisper to this
 * long-lived connection (the runner's tool-boundary hook may deliver it sooner) but writes what
 * is queued ahead of each response; those are kept until the next tool result takes them.
 */
import { IpcClient, type IpcResponse, type IpcWhisper } from "../ipc/ipc-client.js";

/** What {@link DaemonLink.request} failed with: a message the model can act on. */
export class DaemonLinkError extends Error {
  override name = "DaemonLinkError";
}

/** One agent's daemon socket, connected on demand and reconnected after a restart. */
export class DaemonLink {
  private client: IpcClient | null = null;
  private connecting: Promise<IpcClient> | null = null;
  /** Whispers from connections already closed, kept for the next tool result. */
  private readonly orphanWhispers: IpcWhisper[] = [];

  constructor(
    readonly nick: string,
    readonly path: string,
  ) {}

  /**
   * Sends one request and returns the daemon's answer (`ok` or not). A connection found
   * closed is replaced before the request is written, so nothing is sent twice.
   */
  async request(type: string, fields: Record<string, unknown>, timeoutMs?: number): Promise<IpcResponse> {
    const client = await this.connected();
    try {
      return await client.request(type, { ...fields, whispers: "pull" }, timeoutMs === undefined ? {} : { timeoutMs });
    } catch (err) {
      throw new DaemonLinkError(`${errText(err)}. The agent's daemon may be restarting; try again in a moment.`);
    }
  }

  /** Takes the supervisor whispers received since the last call, oldest first. */
  takeWhispers(): IpcWhisper[] {
    const out = this.orphanWhispers.splice(0);
    if (this.client) out.push(...this.client.whispers.splice(0));
    return out;
  }

  /** Closes the connection (the server is stopping). */
  close(): void {
    this.client?.close();
    this.client = null;
  }

  private async connected(): Promise<IpcClient> {
    if (this.client && !this.client.closed) return this.client;
    if (this.client) {
      this.orphanWhispers.push(...this.client.whispers.splice(0));
      this.client = null;
    }
    this.connecting ??= IpcClient.connect(this.path, { timeoutMs: 5_000 }).finally(() => {
      this.connecting = null;
    });
    try {
      this.client = await this.connecting;
      return this.client;
    } catch (err) {
      if ((err as { code?: unknown }).code === "E_NOT_RUNNING") {
        throw new DaemonLinkError(
          `agent ${this.nick}'s daemon is not running (no daemon answers on ${this.path}). ` +
            `It may be restarting; if it stays down, a human must run: culture start ${this.nick}`,
        );
      }
      throw new DaemonLinkError(errText(err));
    }
  }
}

function errText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
