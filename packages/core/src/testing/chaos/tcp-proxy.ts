/**
 * A TCP proxy on loopback between a daemon and its IRC server, for chaos tests: it forwards
 * bytes both ways until told to stall (bytes are held, the link goes silent but stays open,
 * as in a netsplit), drop (every connection through it is cut at once, whatever is held is
 * lost) or block (new connections are refused until unblocked, so a reconnect cannot
 * succeed while the test arranges what the daemon will miss).
 */
import { createServer, connect as netConnect, type Server, type Socket } from "node:net";

/** Options of {@link startTcpProxy}. */
export interface TcpProxyOptions {
  /** The IRC server's port on 127.0.0.1. */
  targetPort: number;
  /** The proxy's own port; default a free one. */
  port?: number;
}

/** A running proxy. Point the daemon at `port`. */
export interface TcpProxy {
  readonly port: number;
  /** Connections made through the proxy so far (reconnects count). */
  readonly connections: number;
  /** Connections open right now. */
  readonly open: number;
  /** Holds every byte in both directions from now on (the link goes silent). */
  stall(): void;
  /** What is being held right now, as text (to wait until a line reached the stalled link). */
  heldText(): string;
  /** Forwards what was held, then everything again. */
  resume(): void;
  /** Cuts every open connection (both sides); held bytes are lost. */
  drop(): void;
  /**
   * Closes the server's side of every open connection but keeps the daemon's side open and
   * deaf (what it writes is lost): the server has dropped the daemon (and broadcast its QUIT)
   * while the close has not reached the daemon yet, as on a busy machine. {@link drop} then
   * closes the daemon's side.
   */
  severUpstream(): void;
  /** Refuses new connections (accepted and closed at once) until {@link unblock}. */
  block(): void;
  unblock(): void;
  /** Resolves once `n` connections in total have been made through the proxy. */
  waitForConnections(n: number): Promise<void>;
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  upstream: Socket;
  held: Array<{ to: Socket; chunk: Buffer }>;
  /** The upstream was closed on purpose; the client side stays open until drop(). */
  severed?: boolean;
}

/** Starts a proxy forwarding 127.0.0.1:`port` to 127.0.0.1:`targetPort`. */
export async function startTcpProxy(opts: TcpProxyOptions): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  let stalled = false;
  let blocked = false;
  let connections = 0;
  const waiters: Array<{ n: number; resolve: () => void }> = [];

  const server: Server = createServer((client) => {
    client.on("error", () => {});
    if (blocked) {
      client.destroy();
      return;
    }
    connections++;
    for (const w of waiters.filter((x) => connections >= x.n)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
    const upstream = netConnect({ host: "127.0.0.1", port: opts.targetPort });
    upstream.on("error", () => {});
    const pair: Pair = { client, upstream, held: [] };
    pairs.add(pair);
    const forward = (to: Socket) => (chunk: Buffer) => {
      if (stalled) pair.held.push({ to, chunk });
      else if (!to.destroyed) to.write(chunk);
    };
    client.on("data", forward(upstream));
    upstream.on("data", forward(client));
    const cut = (): void => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on("close", cut);
    upstream.on("close", () => {
      if (!pair.severed) cut();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as { port: number }).port;

  const drop = (): void => {
    for (const pair of [...pairs]) {
      pair.held.length = 0;
      pair.client.destroy();
      pair.upstream.destroy();
    }
    pairs.clear();
  };
  return {
    port,
    get connections() {
      return connections;
    },
    get open() {
      return pairs.size;
    },
    stall() {
      stalled = true;
    },
    heldText() {
      return [...pairs].flatMap((p) => p.held.map((h) => h.chunk.toString("utf8"))).join("");
    },
    resume() {
      stalled = false;
      for (const pair of pairs) {
        for (const { to, chunk } of pair.held.splice(0)) if (!to.destroyed) to.write(chunk);
      }
    },
    drop,
    severUpstream() {
      for (const pair of pairs) {
        pair.severed = true;
        pair.held.length = 0;
        pair.upstream.destroy();
      }
    },
    block() {
      blocked = true;
    },
    unblock() {
      blocked = false;
    },
    waitForConnections(n) {
      if (connections >= n) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ n, resolve }));
    },
    async close() {
      drop();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
