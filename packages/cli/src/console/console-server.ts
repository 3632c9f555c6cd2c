/**
 * Starts `culture console`: the real fleet source (status and control sockets of the agents
 * under the culture home, as `culture status` and `culture top` read them), the login rules
 * (console-auth.ts), the hono app (console-app.ts), on Node's HTTP server, or HTTPS when a cert
 * and key are given. Only loopback is served without TLS: a session cookie and passwords must
 * not cross a network in clear.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import { embeddedAccountStorePath, presenceConfigOf, usageError, type CultureConfig } from "@culture/core";
import { controlAgent } from "../control.js";
import { otherDaemons } from "../fleet-status.js";
import { agentStatus } from "../commands/status.js";
import { rowFromStatus } from "../top/top-rows.js";
import { NetworkPresence } from "../top/network-presence.js";
import { ConsoleAuth } from "./console-auth.js";
import { consoleApp } from "./console-app.js";
import { consoleAgent, FleetWatch, type ConsoleAgent, type FleetSource } from "./console-fleet.js";

/** Hosts served without TLS. */
const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

/** Options of {@link startConsole}. */
export interface ConsoleOptions {
  host: string;
  port: number;
  /** PEM files; both or neither. Required for a host other than loopback. */
  tlsCert?: string;
  tlsKey?: string;
  /** Seconds between fleet reads. */
  intervalSeconds: number;
  /** Also show the agents seen on the network through presence. */
  network: boolean;
  config: CultureConfig | null;
  /** A fleet source other than the real one (bench). */
  source?: FleetSource;
  /** The account store (default: the embedded server's under CULTURE_HOME). */
  accountsFile?: string;
}

/** A running console. */
export interface RunningConsole {
  url: string;
  /** The one-time login token (already printed by the command). */
  token: string;
  auth: ConsoleAuth;
  close(): Promise<void>;
}

/** Checks the options, starts the console, resolves once it listens. */
export async function startConsole(o: ConsoleOptions): Promise<RunningConsole> {
  if ((o.tlsCert === undefined) !== (o.tlsKey === undefined)) throw usageError("--tls-cert and --tls-key go together: give both PEM files, or neither");
  const tls = o.tlsCert !== undefined && o.tlsKey !== undefined ? { cert: readPem(o.tlsCert, "--tls-cert"), key: readPem(o.tlsKey, "--tls-key") } : null;
  if (!LOOPBACK.has(o.host) && !tls) {
    throw usageError(`culture console serves ${o.host} only over TLS: passwords and the session cookie would cross the network in clear.\nGive a certificate: culture console --host ${o.host} --tls-cert cert.pem --tls-key key.pem\nor stay on this machine: culture console (127.0.0.1)`);
  }
  if (!Number.isInteger(o.port) || o.port < 0 || o.port > 65535) throw usageError(`--port must be 0..65535, got ${o.port}`);

  let network: NetworkPresence | null = null;
  if (o.network) {
    if (!o.config) throw usageError("culture console --network needs a config (its server: section says which network)");
    const channel = presenceConfigOf(o.config).channel;
    if (!channel) throw usageError("culture console --network needs presence.channel in the config (docs/presence.md)");
    network = new NetworkPresence(o.config.server, channel);
    await network.start(`${o.config.server.name ?? "culture"}-web${process.pid % 1000}`);
  }
  const source = o.source ?? realFleet(o.config, network);
  const fleet = new FleetWatch(source, Math.round(o.intervalSeconds * 1000));
  await fleet.start();
  const auth = new ConsoleAuth({ accountsFile: o.accountsFile ?? embeddedAccountStorePath(), operators: o.config?.operators ?? [] });
  const app = consoleApp({ auth, fleet, uiDir: new URL("../console-ui/", import.meta.url), secure: tls !== null });

  const server = await new Promise<ServerType>((resolve, reject) => {
    const s = serve(
      { fetch: app.fetch, port: o.port, hostname: o.host.replace(/^\[|\]$/g, ""), ...(tls ? { createServer: createHttpsServer, serverOptions: tls } : {}) },
      () => resolve(s),
    );
    s.once("error", reject);
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const token = auth.token!;
  return {
    url: `${tls ? "https" : "http"}://${host}:${address.port}/`,
    token,
    auth,
    async close() {
      fleet.stop();
      await network?.stop();
      await new Promise<void>((resolve) => {
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      });
    },
  };
}

/** The agents under the culture home (the config's and every running daemon's), and with `network`, presence. */
function realFleet(config: CultureConfig | null, network: NetworkPresence | null): FleetSource {
  return {
    async rows() {
      const agents = [...(config?.agents ?? []), ...(await otherDaemons(config))];
      const local: ConsoleAgent[] = await Promise.all(
        agents.map(async (a) => {
          const status = (await agentStatus(a, config)) as unknown as Record<string, unknown>;
          return consoleAgent(status, rowFromStatus(status));
        }),
      );
      const seen = new Set(local.map((r) => r.nick.toLowerCase()));
      const remote = network
        ? [...network.rows.values()]
            .filter((r) => !seen.has(r.nick.toLowerCase()))
            .sort((a, b) => a.nick.localeCompare(b.nick))
            .map((r) => consoleAgent({}, r))
        : [];
      return [...local, ...remote];
    },
    control: (nick, type, fields = {}) => controlAgent(nick, type, fields, 3000, "culture console"),
    // Only the config's agents: a daemon of another config is started where its config is.
    ...(config?.filepath
      ? {
          lifecycle: (verb: "start" | "restart", nick: string) =>
            new Promise<{ ok: boolean; output: string }>((resolve) => {
              if (!config.agents.some((a) => a.nick === nick)) return resolve({ ok: false, output: `${nick} is not in ${config.filepath}: ${verb} it where its config is` });
              execFile(process.execPath, [process.argv[1]!, "--config", config.filepath!, verb, nick], { timeout: 90_000 }, (err, stdout, stderr) => resolve({ ok: !err, output: `${stdout}${stderr}`.trim() }));
            }),
        }
      : {}),
  };
}

function readPem(file: string, option: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (err) {
    throw usageError(`${option}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
}
