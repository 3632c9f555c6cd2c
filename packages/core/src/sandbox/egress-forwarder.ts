/**
 * The inside half of the egress bridge of `network: off` (docs/sandbox.md). It runs first in
 * the sandbox's network namespace, where only loopback exists, and then starts the agent:
 *
 * - a proxy port on 127.0.0.1 (picked by the OS) whose connections are piped as they are to
 *   the proxy's Unix socket: the agent's HTTPS_PROXY/HTTP_PROXY point there;
 * - for each model API origin on the machine's loopback (a local model server, the scripted
 *   APIs of the tests), a listener on the same host:port inside that opens a CONNECT tunnel
 *   through the socket: the agent's base URL stays as it is, and clients that never use a proxy
 *   for loopback (most of them) still reach it;
 * - then the agent, with stdio inherited, the proxy variables set, and signals passed on; it
 *   exits with the agent's status.
 *
 * The script is plain CommonJS run with `node -e`, so it needs no file inside the sandbox and
 * works the same from the sources (tests) and from dist.
 */
import { isLoopbackHost, type EgressOrigin } from "./egress-origins.js";

/** What the forwarder is told (one JSON argument). */
export interface EgressForwarderConfig {
  /** The proxy's Unix socket as the sandbox sees it. */
  socket: string;
  /** Loopback origins to listen on inside and tunnel through the socket. */
  tunnels: EgressOrigin[];
}

/** Hosts the agent reaches without the proxy (its own loopback: the tunnels, and servers of its own). */
export const EGRESS_NO_PROXY = "localhost,127.0.0.1,::1";

/**
 * The command line that runs the forwarder and then `agentArgv` inside the sandbox:
 * `node -e <script> -- <config> -- <agent argv...>`.
 */
export function egressForwarderArgv(node: string, config: EgressForwarderConfig, agentArgv: readonly string[]): string[] {
  return [node, "-e", FORWARDER_SCRIPT, "--", JSON.stringify(config), "--", ...agentArgv];
}

/** The config for `allow`: every loopback origin becomes a tunnel. */
export function egressForwarderConfig(socket: string, allow: readonly EgressOrigin[]): EgressForwarderConfig {
  return { socket, tunnels: allow.filter((o) => isLoopbackHost(o.host)) };
}

/**
 * The forwarder itself. Exit codes of its own: 70 when a listener cannot start (the reason
 * goes to stderr, which the daemon logs), 71 when the agent cannot be spawned.
 */
export const FORWARDER_SCRIPT = String.raw`
"use strict";
const net = require("node:net");
const { spawn } = require("node:child_process");
const args = process.argv.slice(1);
const sep = args.indexOf("--");
const config = JSON.parse(args[0]);
const agent = args.slice(sep + 1);
const say = (m) => process.stderr.write("culture egress forwarder: " + m + "\n");
function pipeBoth(a, b) {
  a.on("error", () => b.destroy());
  b.on("error", () => a.destroy());
  a.on("close", () => b.destroy());
  b.on("close", () => a.destroy());
  a.pipe(b);
  b.pipe(a);
}
function listen(server, port, host) {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve(server.address().port));
  });
}
const proxy = net.createServer((c) => pipeBoth(c, net.connect(config.socket)));
const tunnels = config.tunnels.map((t) => {
  const authority = (t.host.includes(":") ? "[" + t.host + "]" : t.host) + ":" + t.port;
  const server = net.createServer((c) => {
    c.pause();
    const up = net.connect(config.socket);
    let head = Buffer.alloc(0);
    const onData = (d) => {
      head = Buffer.concat([head, d]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) return;
      up.off("data", onData);
      if (!/^HTTP\/1\.[01] 200/.test(head.toString("latin1"))) {
        say("tunnel to " + authority + " refused: " + head.toString("latin1").split("\r\n")[0]);
        c.destroy();
        up.destroy();
        return;
      }
      const rest = head.subarray(end + 4);
      if (rest.length > 0) c.write(rest);
      pipeBoth(c, up);
      c.resume();
    };
    up.on("data", onData);
    up.on("error", () => c.destroy());
    c.on("error", () => up.destroy());
    up.write("CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\n\r\n");
  });
  const host = t.host === "localhost" ? "127.0.0.1" : t.host;
  return { server, host, port: t.port, authority };
});
Promise.all([listen(proxy, 0, "127.0.0.1"), ...tunnels.map((t) => listen(t.server, t.port, t.host).catch((e) => { throw new Error("cannot listen on " + t.authority + " inside the sandbox: " + e.message); }))])
  .then(([proxyPort]) => {
    const url = "http://127.0.0.1:" + proxyPort;
    const env = Object.assign({}, process.env, {
      HTTPS_PROXY: url, HTTP_PROXY: url, https_proxy: url, http_proxy: url,
      NO_PROXY: "${EGRESS_NO_PROXY}", no_proxy: "${EGRESS_NO_PROXY}",
      NODE_USE_ENV_PROXY: "1", CULTURE_EGRESS_PROXY: url,
    });
    let child;
    try {
      child = spawn(agent[0], agent.slice(1), { stdio: "inherit", env });
    } catch (e) {
      say("cannot start " + agent[0] + ": " + e.message);
      process.exit(71);
    }
    child.on("error", (e) => { say("cannot start " + agent[0] + ": " + e.message); process.exit(71); });
    for (const sig of ["SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2"]) {
      process.on(sig, () => { try { child.kill(sig); } catch {} });
    }
    child.on("exit", (code, signal) => {
      if (signal) {
        for (const sig of ["SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2"]) process.removeAllListeners(sig);
        process.kill(process.pid, signal);
        setTimeout(() => process.exit(128 + (require("node:os").constants.signals[signal] || 0)), 100).unref();
        return;
      }
      process.exit(code ?? 0);
    });
  })
  .catch((e) => { say(e.message); process.exit(70); });
`;
