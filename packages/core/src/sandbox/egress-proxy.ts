/**
 * The outside half of the egress bridge of `network: off` (docs/sandbox.md): an HTTP proxy on a
 * Unix socket that the daemon runs next to a sandboxed agent. The socket is the only thing that
 * leads out of the sandbox's network namespace (bind-mounted in); the forwarder inside
 * ({@link egressForwarderArgv}) turns it into a TCP port on the sandbox's loopback.
 *
 * It speaks the two proxy forms agent CLIs use: `CONNECT host:port` (HTTPS, TLS stays end to
 * end) and absolute-form `GET http://host:port/path` (plain HTTP). Each request is checked on
 * its own against the allowed origins; everything else gets a 403 and one log line that says
 * what was refused and what is allowed. Origin-form requests (`GET /path` with only a Host
 * header) are refused too: a Host header is the client's word, not a destination.
 */
import { request as httpRequest, createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { connect, type Socket } from "node:net";
import { chmodSync, rmSync } from "node:fs";
import type { Duplex } from "node:stream";
import { isAllowedOrigin, normaliseHost, originText, type EgressOrigin } from "./egress-origins.js";

/** Options of {@link startEgressProxy}. */
export interface EgressProxyOptions {
  /** Where to listen (an existing file there is replaced). Keep it short: Unix socket paths have a ~107-byte limit. */
  socketPath: string;
  /** The only origins let through. */
  allow: readonly EgressOrigin[];
  /** The agent's name, for the log lines. */
  agent: string;
  /** Receives one line per refused request (the daemon's logger). */
  log?: (line: string) => void;
}

/** One request the bridge refused. */
export interface EgressRefusal {
  /** `CONNECT evil.example:443`, `GET http://127.0.0.1:9/`, `GET /path (no absolute URL)`. */
  request: string;
  /** The log line written for it. */
  line: string;
}

/** A running egress proxy. */
export interface EgressProxy {
  socketPath: string;
  /** The origins it lets through. */
  allowList: readonly EgressOrigin[];
  /** Every refused request so far, oldest first. */
  refusals: EgressRefusal[];
  /** How many requests and tunnels it let through. */
  allowed(): number;
  /** Stops listening, ends open tunnels and removes the socket file. */
  close(): Promise<void>;
  /** The same, without waiting. */
  closeNow(): void;
  /** Resolves once it listens (rejects when it cannot). */
  listening: Promise<void>;
}

/** Hop-by-hop headers a proxy must not pass on (RFC 9110 7.6.1), plus the proxy's own. */
const HOP_HEADERS = new Set(["connection", "keep-alive", "proxy-connection", "proxy-authorization", "proxy-authenticate", "te", "trailer", "transfer-encoding", "upgrade"]);

/** `host:port` in a CONNECT line: a DNS name, an IPv4 address or a bracketed IPv6 address, and a port. Nothing else. */
const AUTHORITY = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9.])?):(\d{1,5})$/;

/** Starts the proxy; resolves once it listens. */
export async function startEgressProxy(opts: EgressProxyOptions): Promise<EgressProxy> {
  const proxy = createEgressProxy(opts);
  await proxy.listening;
  return proxy;
}

/**
 * Starts the proxy without waiting: a Unix socket is bound and listening when `listen()`
 * returns (no name lookup), so an agent spawned right after can connect. For the sandbox's
 * synchronous command building; a listen error is logged and rejects `listening`.
 */
export function createEgressProxy(opts: EgressProxyOptions): EgressProxy {
  const refusals: EgressRefusal[] = [];
  const open = new Set<Duplex>();
  let allowedCount = 0;
  const allowedText = opts.allow.length > 0 ? opts.allow.map(originText).join(", ") : "nothing";
  const refuse = (request: string, why: string): string => {
    const line = `sandbox egress refused for ${opts.agent}: ${request} (${why}; network: off lets through only ${allowedText})`;
    refusals.push({ request, line });
    opts.log?.(line);
    return line;
  };
  const track = (s: Duplex) => {
    open.add(s);
    s.on("close", () => open.delete(s));
  };

  // requireHostHeader off: a proxy decides on the request line, and a missing Host gets our own refusal.
  const server: Server = createServer({ requireHostHeader: false }, (req, res) => forwardRequest(req, res));
  server.on("connection", (s: Socket) => track(s));
  // A request line Node's parser rejects (a user name in the URL's authority, bad bytes) is refused and logged too.
  server.on("clientError", (err: Error & { rawPacket?: Buffer }, socket: Duplex) => {
    const first = err.rawPacket?.toString("latin1").split("\r\n")[0]?.slice(0, 200) ?? "";
    const line = refuse(first || "an unreadable request", `unparsable: ${err.message}`);
    if (socket.writable) socket.end(`HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n${line}\n`);
    else socket.destroy();
  });
  server.on("connect", (req: IncomingMessage, client: Duplex, head: Buffer) => {
    const m = AUTHORITY.exec(req.url ?? "");
    const port = m ? Number(m[2]) : NaN;
    if (!m || port < 1 || port > 65535) {
      const line = refuse(`CONNECT ${req.url}`, "not a host:port");
      client.end(`HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n${line}\n`);
      return;
    }
    const host = normaliseHost(m[1]!);
    if (!isAllowedOrigin(opts.allow, host, port)) {
      const line = refuse(`CONNECT ${req.url}`, "not a model API origin of this agent");
      client.end(`HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n${line}\n`);
      return;
    }
    allowedCount++;
    const upstream = connect(port, host);
    track(upstream);
    upstream.once("connect", () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on("error", (err) => {
      if (client.writable && !upstream.readableDidRead) client.end(`HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\n\r\n${err.message}\n`);
      else client.destroy();
    });
    client.on("error", () => upstream.destroy());
    client.on("close", () => upstream.destroy());
  });

  function forwardRequest(req: IncomingMessage, res: ServerResponse): void {
    const raw = req.url ?? "";
    let url: URL | null = null;
    if (/^http:\/\//i.test(raw)) {
      try {
        url = new URL(raw);
      } catch {
        url = null;
      }
    }
    if (!url) {
      const line = refuse(`${req.method} ${raw}`, /^https:/i.test(raw) ? "https needs CONNECT" : "no absolute http:// URL");
      res.writeHead(400, { "content-type": "text/plain", connection: "close" }).end(`${line}\n`);
      return;
    }
    const host = normaliseHost(url.hostname);
    const port = url.port ? Number(url.port) : 80;
    if (url.username || url.password || !isAllowedOrigin(opts.allow, host, port)) {
      const line = refuse(`${req.method} ${raw}`, url.username || url.password ? "a user name in the URL" : "not a model API origin of this agent");
      res.writeHead(403, { "content-type": "text/plain", connection: "close" }).end(`${line}\n`);
      return;
    }
    allowedCount++;
    const upstream = httpRequest(
      { host, port, method: req.method, path: `${url.pathname}${url.search}`, headers: { ...endToEndHeaders(req.headers), host: url.host } },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.statusMessage, endToEndHeaders(up.headers));
        up.pipe(res);
      },
    );
    upstream.on("error", (err) => {
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" }).end(`${err.message}\n`);
      else res.destroy();
    });
    req.pipe(upstream);
  }

  rmSync(opts.socketPath, { force: true });
  const listening = new Promise<void>((resolve, reject) => {
    server.once("error", (err) => {
      opts.log?.(`sandbox egress bridge for ${opts.agent} cannot listen on ${opts.socketPath}: ${err.message}`);
      reject(err);
    });
    server.listen(opts.socketPath, () => {
      // Sockets are the owner's only (the runtime dir is 0700 too).
      chmodSync(opts.socketPath, 0o600);
      resolve();
    });
  });
  listening.catch(() => undefined);
  // It must not keep a process alive on its own (the daemon closes it on stop).
  server.unref();
  const close = async () => {
    for (const s of open) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(opts.socketPath, { force: true });
  };
  return {
    socketPath: opts.socketPath,
    allowList: [...opts.allow],
    refusals,
    allowed: () => allowedCount,
    close,
    closeNow: () => void close().catch(() => undefined),
    listening,
  };
}

function endToEndHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_HEADERS.has(name.toLowerCase())) continue;
    out[name] = value;
  }
  return out;
}
