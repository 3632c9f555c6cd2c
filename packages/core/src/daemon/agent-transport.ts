/**
 * The agent's IRC connection: the transport for its configured channels plus the alerts
 * channel, logged in with the embedded server's generated credentials when nothing else is
 * configured, its events logged and handed to the daemon.
 */
import type { IrcMessageEvent } from "../events.js";
import { withLocalCredentials } from "../identity/local-credentials.js";
import type { ChannelMarks } from "../irc/channel-marks.js";
import { IrcTransport } from "../irc/irc-transport.js";
import type { AgentParts } from "./agent-factory.js";
import { presenceConfigOf } from "./agent-presence.js";
import { mirrorOf } from "../config/mirror-schema.js";
import type { DaemonTimings } from "./daemon-timings.js";

/** What the daemon does with the transport's events. */
export interface AgentTransportEvents {
  message(ev: IrcMessageEvent): void;
  registered(): void;
  disconnected(reason: string): void;
  joinError(j: { channel: string; code: string; reason: string }): void;
}

/** Creates the agent's transport, hands it to `created` (before it connects), wires `on`, and connects. */
export async function startAgentTransport(
  p: Pick<AgentParts, "nick" | "config" | "agent" | "env" | "logger">,
  marks: ChannelMarks | null,
  timings: Pick<DaemonTimings, "reconnectMinMs" | "reconnectMaxMs" | "connectTimeoutMs">,
  created: (transport: IrcTransport) => void,
  on: AgentTransportEvents,
): Promise<void> {
  const channels = [...p.agent.channels];
  const alertChannel = p.config.webhooks.irc_channel;
  if (!channels.some((c) => c.toLowerCase() === alertChannel.toLowerCase())) channels.push(alertChannel);
  // The presence channel (docs/presence.md); configs built in code without a presence section have none.
  const presenceChannel = presenceConfigOf(p.config).channel;
  if (presenceChannel && !channels.some((c) => c.toLowerCase() === presenceChannel.toLowerCase())) channels.push(presenceChannel);
  // The activity mirror's channel (docs/presence.md "Activity mirror").
  const mirrorChannel = mirrorOf(p.config, p.agent)?.channel;
  if (mirrorChannel && !channels.some((c) => c.toLowerCase() === mirrorChannel.toLowerCase())) channels.push(mirrorChannel);
  const logger = p.logger;
  const transport = new IrcTransport({
    // identity: on the embedded server with nothing configured, log in with generated credentials
    server: await withLocalCredentials(p.config.server, p.nick, "agent", p.env),
    nick: p.nick,
    channels,
    logger: logger.child("irc"),
    reconnectMinMs: timings.reconnectMinMs,
    reconnectMaxMs: timings.reconnectMaxMs,
    connectTimeoutMs: timings.connectTimeoutMs,
    marks,
  });
  created(transport);
  transport.on("message", (ev: IrcMessageEvent) => on.message(ev));
  transport.on("registered", () => on.registered());
  transport.on("disconnected", (reason: string) => on.disconnected(reason));
  transport.on("kicked", (k: { channel: string; by: string; reason: string }) => logger.warn(`kicked from ${k.channel} by ${k.by}: ${k.reason}`));
  transport.on("joinError", (j: { channel: string; code: string; reason: string }) => on.joinError(j));
  transport.on("nickInUse", (taken: string) => logger.warn(`nick ${taken} is in use; using ${transport.nick}`));
  await transport.connect();
}
