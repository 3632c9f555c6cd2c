/**
 * `culture top --network`: every culture agent on the IRC network, read from presence
 * (docs/presence.md). The watcher joins the presence channel, asks once with
 * `culture-presence?` (every agent answers with its line), then follows the lines, and
 * marks an agent offline when it parts or quits.
 */
import { parsePresenceLine, PRESENCE_QUERY, type ServerConfig } from "@culture/core";
import { IrcLineClient } from "../irc-line-client.js";
import { loginPassword } from "../commands/send.js";
import type { TopRow } from "./top-rows.js";

/** The agents seen on the network, by nick. */
export class NetworkPresence {
  readonly rows = new Map<string, TopRow>();
  private client: IrcLineClient | null = null;

  constructor(
    private readonly server: ServerConfig,
    private readonly channel: string,
  ) {}

  /** Connects, joins the presence channel and asks every agent for its line. */
  async start(nick: string): Promise<void> {
    const client = await IrcLineClient.connect({
      host: this.server.host,
      port: this.server.port,
      tls: this.server.tls,
      tlsVerify: this.server.tls_verify,
      password: await loginPassword(this.server),
      sasl: this.server.sasl,
      nick,
      realname: "culture top --network",
    });
    this.client = client;
    client.watch((line) => {
      const who = line.prefix.split("!")[0] ?? "";
      const target = (line.params[0] ?? "").toLowerCase();
      if (line.command === "NOTICE" && target === this.channel.toLowerCase()) {
        const p = parsePresenceLine(line.params[1] ?? "");
        if (p) this.rows.set(who, { nick: who, state: p.state, source: "network", irc: "connected", tool: p.tool, toolSince: p.toolSince, queued: p.queued, turns: p.turns, approvals: p.approvals, approval: null, spend: p.fields.spend ?? null, task: "" });
      } else if ((line.command === "PART" && target === this.channel.toLowerCase()) || line.command === "QUIT") {
        const row = this.rows.get(who);
        if (row) this.rows.set(who, { ...row, state: "offline", irc: "gone", tool: null, toolSince: null });
      } else if (line.command === "AWAY") {
        const row = this.rows.get(who);
        if (row) this.rows.set(who, { ...row, task: line.params[0] ?? "" });
      }
    });
    client.send("CAP REQ :away-notify");
    client.send(`JOIN ${this.channel}`);
    client.send(`NOTICE ${this.channel} :${PRESENCE_QUERY}`);
  }

  /** Leaves the network. */
  async stop(): Promise<void> {
    await this.client?.quit("culture top closed").catch(() => this.client?.destroy());
  }
}
