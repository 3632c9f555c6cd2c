import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { connect, type Socket } from "node:net";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { IpcServer } from "../src/ipc/ipc-server.js";
import { isCultureError } from "../src/errors.js";
import { silentLogger } from "../src/logger.js";
import { socketPath } from "../src/paths.js";
import type { IpcRequest, IpcResult } from "../src/events.js";

/** A raw client: writes bytes, reads parsed lines (no IpcClient, to see the exact wire). */
class RawClient {
  readonly lines: string[] = [];
  private buf = "";
  private waiters: Array<() => void> = [];
  closed = false;
  private constructor(readonly socket: Socket) {
    socket.setEncoding("utf8");
    socket.on("data", (s: string) => {
      this.buf += s;
      let i: number;
      while ((i = this.buf.indexOf("\n")) !== -1) {
        this.lines.push(this.buf.slice(0, i));
        this.buf = this.buf.slice(i + 1);
      }
      this.wake();
    });
    socket.on("close", () => {
      this.closed = true;
      this.wake();
    });
    socket.on("error", () => {});
  }
  static open(path: string): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const s = connect({ path });
      s.once("error", reject);
      s.once("connect", () => resolve(new RawClient(s)));
    });
  }
  send(line: string): void {
    this.socket.write(line);
  }
  /** Waits until `n` lines have arrived in total; returns them parsed. */
  async waitLines(n: number): Promise<Record<string, unknown>[]> {
    while (this.lines.length < n) {
      if (this.closed) throw new Error(`connection closed after ${this.lines.length} of ${n} lines: ${this.lines.join(" | ")}`);
      await new Promise<void>((r) => this.waiters.push(r));
    }
    return this.lines.slice(0, n).map((l) => JSON.parse(l) as Record<string, unknown>);
  }
  async waitClosed(): Promise<void> {
    while (!this.closed) await new Promise<void>((r) => this.waiters.push(r));
  }
  close(): void {
    this.socket.destroy();
  }
  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }
}

/** A promise the test releases by hand. */
function gate() {
  let open!: () => void;
  const p = new Promise<void>((r) => (open = r));
  return { p, open };
}

/** The test daemon's handler: echo, unknown types, throwing, gated and delayed requests. */
function makeHandler(gates: Map<string, Promise<void>>, seen: IpcRequest[]) {
  return async (req: IpcRequest): Promise<IpcResult> => {
    seen.push(req);
    switch (req.type) {
      case "echo":
        return { ok: true, data: { echo: req.value ?? null, id: req.id } };
      case "status":
        return { ok: true, data: { pid: process.pid } };
      case "boom":
        throw new Error("the handler exploded");
      case "wait": {
        await gates.get(String(req.gate));
        return { ok: true, data: { waited: req.gate } };
      }
      case "sleep":
        await new Promise((r) => setTimeout(r, Number(req.ms)));
        return { ok: true, data: { slept: req.ms } };
      default:
        return { ok: false, error: `Unknown message type: '${req.type}'` };
    }
  };
}

let dir: string;
let server: IpcServer | null;
let clients: RawClient[];
let gates: Map<string, Promise<void>>;
let seen: IpcRequest[];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "cipc-"));
  server = null;
  clients = [];
  gates = new Map();
  seen = [];
});

afterEach(async () => {
  for (const c of clients) c.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function startServer(opts: { maxLineBytes?: number; whisperQueueLimit?: number; path?: string } = {}): Promise<IpcServer> {
  server = new IpcServer({ path: opts.path ?? join(dir, "d.sock"), handler: makeHandler(gates, seen), logger: silentLogger, ...opts });
  await server.start();
  return server;
}

async function client(path = join(dir, "d.sock")): Promise<RawClient> {
  const c = await RawClient.open(path);
  clients.push(c);
  return c;
}

describe("IpcServer: protocol", () => {
  it("answers a request with the same id, in the reference wire format", async () => {
    await startServer();
    const c = await client();
    c.send('{"type":"echo","id":"abc-1","value":"hé"}\n');
    await c.waitLines(1);
    expect(c.lines[0]).toBe('{"type":"response","id":"abc-1","ok":true,"data":{"echo":"h\\u00e9","id":"abc-1"}}');
    expect(seen[0]).toEqual({ type: "echo", id: "abc-1", value: "hé" });
  });

  it("answers invalid JSON with ok:false, id \"\" and the parse error, and keeps the connection", async () => {
    await startServer();
    const c = await client();
    c.send('{"type": nope}\n{"type":"echo","id":"2"}\n');
    const [bad, good] = await c.waitLines(2);
    expect(bad).toMatchObject({ type: "response", id: "", ok: false });
    expect(bad?.error).toMatch(/^invalid JSON at line 1: Unexpected token/);
    expect(good).toMatchObject({ id: "2", ok: true });
  });

  it("answers non-object lines (number, string, null, array) with ok:false, id \"\"", async () => {
    await startServer();
    const c = await client();
    c.send('42\n"status"\nnull\n[{"type":"status","id":"x"}]\n');
    const answers = await c.waitLines(4);
    expect(answers.map((a) => [a.id, a.ok, a.error])).toEqual([
      ["", false, "invalid request at line 1: expected a JSON object, got a number"],
      ["", false, "invalid request at line 2: expected a JSON object, got a string"],
      ["", false, "invalid request at line 3: expected a JSON object, got null"],
      ["", false, "invalid request at line 4: expected a JSON object, got an array"],
    ]);
    expect(seen).toEqual([]);
  });

  it("names the field when 'type' is missing or not a string; a missing id is answered with \"\"", async () => {
    await startServer();
    const c = await client();
    c.send('{"id":"m1","channel":"#c"}\n{"type":7,"id":"m2"}\n{"type":"echo"}\n{"type":"echo","id":12}\n');
    const [missing, notString, noId, numericId] = await c.waitLines(4);
    expect(missing).toMatchObject({ id: "m1", ok: false });
    expect(missing?.error).toMatch(/the field 'type' is missing/);
    expect(notString).toMatchObject({ id: "m2", ok: false });
    expect(notString?.error).toMatch(/the field 'type' is not a non-empty string/);
    expect(noId).toMatchObject({ id: "", ok: true });
    expect(numericId).toMatchObject({ id: 12, ok: true }); // echoed as sent
  });

  it("passes unknown types to the handler, which decides the answer", async () => {
    await startServer();
    const c = await client();
    c.send('{"type":"frobnicate","id":"u"}\n');
    const [a] = await c.waitLines(1);
    expect(a).toEqual({ type: "response", id: "u", ok: false, error: "Unknown message type: 'frobnicate'" });
  });

  it("answers a line over the limit with an error, discards it, and answers the next request", async () => {
    await startServer();
    const c = await client();
    const huge = `{"type":"echo","id":"big","value":"${"x".repeat(1024 * 1024)}"}\n`;
    c.send(huge + '{"type":"echo","id":"after"}\n');
    const [over, after] = await c.waitLines(2);
    expect(over).toEqual({ type: "response", id: "", ok: false, error: "line exceeds 1048576 bytes; discarded" });
    expect(after).toMatchObject({ id: "after", ok: true });
    expect(seen.map((r) => r.id)).toEqual(["after"]);
  });

  it("honours a custom maxLineBytes", async () => {
    await startServer({ maxLineBytes: 64 });
    const c = await client();
    c.send(`{"type":"echo","id":"a","value":"${"y".repeat(80)}"}\n{"type":"echo","id":"b"}\n`);
    const [over, ok] = await c.waitLines(2);
    expect(over?.error).toBe("line exceeds 64 bytes; discarded");
    expect(ok).toMatchObject({ id: "b", ok: true });
  });

  it("answers a throwing handler with its message and keeps serving", async () => {
    await startServer();
    const c = await client();
    c.send('{"type":"boom","id":"b1"}\n{"type":"echo","id":"b2"}\n');
    const [boom, next] = await c.waitLines(2);
    expect(boom).toEqual({ type: "response", id: "b1", ok: false, error: "the handler exploded" });
    expect(next).toMatchObject({ id: "b2", ok: true });
  });

  it("answers requests on one connection in order, even when a later one would finish first", async () => {
    await startServer();
    const c = await client();
    c.send('{"type":"sleep","id":"1","ms":60}\n{"type":"sleep","id":"2","ms":0}\n{"type":"echo","id":"3"}\n');
    const answers = await c.waitLines(3);
    expect(answers.map((a) => a.id)).toEqual(["1", "2", "3"]);
    // Serialized, not just reordered: the handler saw 2 only after 1 was answered.
    expect(seen.map((r) => r.id)).toEqual(["1", "2", "3"]);
  });

  it("does not start a request that arrives while an earlier one on the connection is in the handler", async () => {
    await startServer();
    const g = gate();
    gates.set("slow", g.p);
    const c = await client();
    c.send('{"type":"wait","id":"1","gate":"slow"}\n');
    while (seen.length === 0) await new Promise((r) => setTimeout(r, 5));
    c.send('{"type":"echo","id":"2"}\n'); // a separate chunk, read while request 1 waits
    await new Promise((r) => setTimeout(r, 50));
    expect(seen.map((r) => r.id)).toEqual(["1"]);
    expect(c.lines).toEqual([]);
    g.open();
    expect((await c.waitLines(2)).map((a) => a.id)).toEqual(["1", "2"]);
  });

  it("keeps connections independent: a blocked request does not hold up another connection", async () => {
    await startServer();
    const g = gate();
    gates.set("g1", g.p);
    const a = await client();
    const b = await client();
    a.send('{"type":"wait","id":"a1","gate":"g1"}\n');
    b.send('{"type":"echo","id":"b1"}\n');
    const [bAnswer] = await b.waitLines(1);
    expect(bAnswer).toMatchObject({ id: "b1", ok: true });
    expect(a.lines).toEqual([]);
    g.open();
    const [aAnswer] = await a.waitLines(1);
    expect(aAnswer).toMatchObject({ id: "a1", ok: true, data: { waited: "g1" } });
  });

  it("survives a client that disconnects mid-request", async () => {
    await startServer();
    const g = gate();
    gates.set("g", g.p);
    const a = await client();
    a.send('{"type":"wait","id":"w","gate":"g"}\n');
    while (seen.length === 0) await new Promise((r) => setTimeout(r, 5));
    a.close();
    await a.waitClosed();
    g.open();
    const b = await client();
    b.send('{"type":"echo","id":"still-here"}\n');
    const [answer] = await b.waitLines(1);
    expect(answer).toMatchObject({ id: "still-here", ok: true });
    expect(server?.clientCount).toBe(1);
  });

  it("answers a client that half-closes after writing, then closes", async () => {
    await startServer();
    const c = await client();
    c.socket.end('{"type":"echo","id":"h1"}\n{"type":"echo","id":"h2"}'); // last line without \n
    const answers = await c.waitLines(2);
    expect(answers.map((a) => a.id)).toEqual(["h1", "h2"]);
    await c.waitClosed();
  });
});

describe("IpcServer: whispers", () => {
  it("broadcasts a whisper to every connected client", async () => {
    await startServer();
    const a = await client();
    const b = await client();
    a.send('{"type":"echo","id":"a"}\n');
    b.send('{"type":"echo","id":"b"}\n');
    await a.waitLines(1);
    await b.waitLines(1);
    server!.sendWhisper({ action: "CORRECTION", message: "Try a different approach" });
    await a.waitLines(2);
    await b.waitLines(2);
    const expected = '{"type":"whisper","whisper_type":"CORRECTION","message":"Try a different approach"}';
    expect(a.lines[1]).toBe(expected);
    expect(b.lines[1]).toBe(expected);
  });

  it("queues whispers while no client is connected (newest kept) and delivers all of them before the next client's first response", async () => {
    await startServer({ whisperQueueLimit: 2 });
    server!.sendWhisper({ action: "CORRECTION", message: "one" });
    server!.sendWhisper({ action: "THINK_DEEPER", message: "two" });
    server!.sendWhisper({ action: "CORRECTION", message: "three" });
    const c = await client();
    expect(c.lines).toEqual([]); // nothing before the client asks
    c.send('{"type":"echo","id":"first"}\n{"type":"echo","id":"second"}\n');
    const lines = await c.waitLines(4);
    expect(lines).toEqual([
      { type: "whisper", whisper_type: "THINK_DEEPER", message: "two" },
      { type: "whisper", whisper_type: "CORRECTION", message: "three" },
      expect.objectContaining({ type: "response", id: "first" }),
      expect.objectContaining({ type: "response", id: "second" }),
    ]);
    // Delivered once: the next client gets none.
    const d = await client();
    d.send('{"type":"echo","id":"later"}\n');
    expect(await d.waitLines(1)).toEqual([expect.objectContaining({ id: "later" })]);
  });

  it("keeps queued whispers from observers (status polls) for the agent's next client", async () => {
    await startServer();
    server!.sendWhisper({ action: "CORRECTION", message: "for the agent" });
    const observer = await client();
    observer.send('{"type":"status","id":"s","observer":true}\n');
    expect(await observer.waitLines(1)).toEqual([expect.objectContaining({ id: "s", ok: true })]);
    server!.sendWhisper({ action: "THINK_DEEPER", message: "second" }); // observer connected: still queued
    const agent = await client();
    agent.send('{"type":"echo","id":"e"}\n');
    const lines = await agent.waitLines(3);
    expect(lines.map((l) => l.message ?? l.id)).toEqual(["for the agent", "second", "e"]);
    expect(observer.lines).toHaveLength(1);
  });

  it("pushes nothing to a puller (a long-lived IRC tools link): whispers stay queued for a runner hook, or go ahead of its next response", async () => {
    await startServer();
    const tools = await client();
    tools.send('{"type":"echo","id":"t1","whispers":"pull"}\n');
    expect(await tools.waitLines(1)).toEqual([expect.objectContaining({ id: "t1" })]);
    server!.sendWhisper({ action: "CORRECTION", message: "for a hook" });
    // Still queued: a runner's tool-boundary hook takes it from the same queue.
    expect(server!.whispers.take()).toEqual([{ action: "CORRECTION", message: "for a hook" }]);
    server!.sendWhisper({ action: "THINK_DEEPER", message: "for the next tool call" });
    tools.send('{"type":"echo","id":"t2","whispers":"pull"}\n');
    const lines = await tools.waitLines(3);
    expect(lines.slice(1)).toEqual([
      { type: "whisper", whisper_type: "THINK_DEEPER", message: "for the next tool call" },
      expect.objectContaining({ type: "response", id: "t2" }),
    ]);
    expect(tools.lines).toHaveLength(3);
  });

  it("sends queued whispers ahead of a new one, in order, when a client is connected", async () => {
    await startServer();
    server!.sendWhisper({ action: "CORRECTION", message: "queued" });
    const g = gate();
    gates.set("g", g.p);
    const c = await client();
    c.send('{"type":"wait","id":"w","gate":"g"}\n');
    while (seen.length === 0) await new Promise((r) => setTimeout(r, 5));
    server!.sendWhisper({ action: "CORRECTION", message: "live" });
    const early = await c.waitLines(2);
    expect(early.map((l) => l.message)).toEqual(["queued", "live"]);
    g.open();
    expect((await c.waitLines(3))[2]).toMatchObject({ id: "w" });
  });
});

describe("IpcServer: socket file", () => {
  it("creates the socket 0600 even with umask 0, and the runtime dir 0700", async () => {
    const home = join(dir, "home");
    mkdirSync(join(home, "run"), { recursive: true, mode: 0o755 });
    chmodSync(join(home, "run"), 0o755); // loosened: start() must re-tighten it
    const env = { CULTURE_HOME: home };
    const path = socketPath("spark-test", env);
    const old = process.umask(0);
    try {
      server = new IpcServer({ path, handler: makeHandler(gates, seen), logger: silentLogger, env });
      await server.start();
    } finally {
      process.umask(old);
    }
    expect(statSync(path).isSocket()).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, "run")).mode & 0o777).toBe(0o700);
  });

  it("creates a missing runtime dir 0700", async () => {
    const env = { CULTURE_HOME: join(dir, "fresh") };
    const path = socketPath("spark-test", env);
    server = new IpcServer({ path, handler: makeHandler(gates, seen), logger: silentLogger, env });
    await server.start();
    expect(statSync(join(dir, "fresh", "run")).mode & 0o777).toBe(0o700);
  });

  it("rejects a socket path over the AF_UNIX limit with E_SOCKET_PATH_TOO_LONG", async () => {
    const path = join(dir, "x".repeat(120), "d.sock");
    const s = new IpcServer({ path, handler: makeHandler(gates, seen), logger: silentLogger });
    const err = await s.start().then(() => null, (e: unknown) => e);
    expect(isCultureError(err, "E_SOCKET_PATH_TOO_LONG")).toBe(true);
    expect((err as Error).message).toMatch(/over the AF_UNIX limit of 10[37]/);
    expect(existsSync(join(dir, "x".repeat(120)))).toBe(false);
  });

  it("refuses to listen over an existing file (stale-socket handling is the caller's)", async () => {
    const path = join(dir, "d.sock");
    writeFileSync(path, "");
    const s = new IpcServer({ path, handler: makeHandler(gates, seen), logger: silentLogger });
    const err = await s.start().then(() => null, (e: unknown) => e);
    expect(isCultureError(err, "E_IPC")).toBe(true);
    expect((err as Error).message).toMatch(/couldn't listen on the IPC socket .*d\.sock: .*EADDRINUSE/);
  });

  it("stop() closes clients and removes the socket file", async () => {
    await startServer();
    const path = join(dir, "d.sock");
    const c = await client();
    c.send('{"type":"echo","id":"1"}\n');
    await c.waitLines(1);
    expect(server!.clientCount).toBe(1);
    await server!.stop();
    await c.waitClosed();
    expect(existsSync(path)).toBe(false);
    server = null;
  });

  it("stop() from inside a request still answers that request", async () => {
    const path = join(dir, "d.sock");
    const s: IpcServer = new IpcServer({
      path,
      logger: silentLogger,
      handler: async (req) => {
        if (req.type === "shutdown") {
          await s.stop();
          return { ok: true, data: { stopping: true } };
        }
        return { ok: false, error: "?" };
      },
    });
    await s.start();
    const c = await client(path);
    c.send('{"type":"shutdown","id":"bye"}\n{"type":"echo","id":"dropped"}\n');
    expect(await c.waitLines(1)).toEqual([{ type: "response", id: "bye", ok: true, data: { stopping: true } }]);
    await c.waitClosed();
    expect(c.lines).toHaveLength(1);
    expect(existsSync(path)).toBe(false);
  });
});
