import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createServer, type Server } from "node:net";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { IpcClient, probeSocket, requestId } from "../src/ipc/ipc-client.js";
import { IpcServer } from "../src/ipc/ipc-server.js";
import { isCultureError } from "../src/errors.js";
import { silentLogger } from "../src/logger.js";
import type { IpcRequest, IpcResult } from "../src/events.js";

let dir: string;
let path: string;
let server: IpcServer | null;
let clients: IpcClient[];
let release: (() => void) | null;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "cipcc-"));
  path = join(dir, "d.sock");
  server = null;
  clients = [];
  release = null;
});

afterEach(async () => {
  release?.();
  for (const c of clients) c.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function startServer(handler?: (req: IpcRequest) => Promise<IpcResult>): Promise<IpcServer> {
  const hold = new Promise<void>((r) => (release = r));
  server = new IpcServer({
    path,
    logger: silentLogger,
    handler:
      handler ??
      (async (req) => {
        if (req.type === "status") return { ok: true, data: { pid: 4242, running: true } };
        if (req.type === "hang") {
          await hold;
          return { ok: true, data: {} };
        }
        if (req.type === "echo") return { ok: true, data: { ...req } };
        return { ok: false, error: `Unknown message type: '${req.type}'` };
      }),
  });
  await server.start();
  return server;
}

async function connectClient(): Promise<IpcClient> {
  const c = await IpcClient.connect(path);
  clients.push(c);
  return c;
}

/** A socket file nobody listens on: its owner was SIGKILLed, as after a daemon crash. */
async function makeStaleSocket(p: string): Promise<void> {
  const child = spawn(process.execPath, [
    "-e",
    `require("node:net").createServer().listen(${JSON.stringify(p)}, () => process.kill(process.pid, "SIGKILL"))`,
  ]);
  await new Promise((r) => child.on("exit", r));
  expect(existsSync(p)).toBe(true);
}

describe("IpcClient", () => {
  it("sends type, id (a UUID) and fields, and resolves with the matching response", async () => {
    await startServer();
    const c = await connectClient();
    const res = await c.request("echo", { channel: "#general", message: "hi" });
    expect(res.ok).toBe(true);
    expect(res.type).toBe("response");
    expect(res.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(res.data).toEqual({ type: "echo", id: res.id, channel: "#general", message: "hi" });
    // The key order on the wire is the reference client's: type, id, then the fields.
    expect(Object.keys(res.data ?? {})).toEqual(["type", "id", "channel", "message"]);
  });

  it("resolves ok:false answers instead of throwing", async () => {
    await startServer();
    const c = await connectClient();
    expect(await c.request("nope")).toMatchObject({ ok: false, error: "Unknown message type: 'nope'" });
  });

  it("matches concurrent responses by id", async () => {
    await startServer();
    const c = await connectClient();
    const answers = await Promise.all([1, 2, 3, 4, 5].map((n) => c.request("echo", { n })));
    expect(answers.map((a) => a.data?.n)).toEqual([1, 2, 3, 4, 5]);
  });

  it("collects whispers as they arrive", async () => {
    const s = await startServer();
    s.sendWhisper({ action: "CORRECTION", message: "stop retrying" });
    const c = await connectClient();
    await c.request("echo");
    expect(c.whispers).toEqual([{ whisper_type: "CORRECTION", message: "stop retrying" }]);
    s.sendWhisper({ action: "THINK_DEEPER", message: "why?" });
    await c.request("echo"); // the whisper was written before this answer
    expect(c.whispers.at(-1)).toEqual({ whisper_type: "THINK_DEEPER", message: "why?" });
  });

  it("fails with E_NOT_RUNNING naming the path when there is no socket", async () => {
    const err = await IpcClient.connect(path).then(() => null, (e: unknown) => e);
    expect(isCultureError(err, "E_NOT_RUNNING")).toBe(true);
    expect((err as Error).message).toBe(`no daemon answers on ${path} (no socket file)`);
  });

  it("fails with E_NOT_RUNNING when the socket file is stale", async () => {
    await makeStaleSocket(path);
    const err = await IpcClient.connect(path).then(() => null, (e: unknown) => e);
    expect(isCultureError(err, "E_NOT_RUNNING")).toBe(true);
    expect((err as Error).message).toContain(path);
    expect((err as Error).message).toContain("connection refused");
  });

  it("times out a request with E_TIMEOUT and stays usable", async () => {
    await startServer();
    const c = await connectClient();
    const err = await c.request("hang", {}, { timeoutMs: 50 }).then(() => null, (e: unknown) => e);
    expect(isCultureError(err, "E_TIMEOUT")).toBe(true);
    expect((err as Error).message).toMatch(/no answer to "hang" .* within 50 ms/);
    release?.();
    expect((await c.request("echo")).ok).toBe(true);
  });

  it("fails pending requests with E_IPC when the daemon drops the connection", async () => {
    const raw: Server = createServer((sock) => sock.on("data", () => sock.destroy()));
    await new Promise<void>((r) => raw.listen(path, r));
    try {
      const c = await connectClient();
      const err = await c.request("status").then(() => null, (e: unknown) => e);
      expect(isCultureError(err, "E_IPC")).toBe(true);
      expect((err as Error).message).toContain("closed the IPC connection");
      const again = await c.request("status").then(() => null, (e: unknown) => e);
      expect(isCultureError(again, "E_IPC")).toBe(true);
    } finally {
      await new Promise((r) => raw.close(r));
    }
  });
});

describe("probeSocket", () => {
  it("finds a live daemon and its pid", async () => {
    await startServer();
    expect(await probeSocket(path, 2000)).toEqual({ alive: true, pid: 4242 });
  });

  it("reports a missing or stale socket as not alive", async () => {
    expect(await probeSocket(path, 2000)).toEqual({ alive: false, pid: null });
    await makeStaleSocket(path);
    expect(await probeSocket(path, 2000)).toEqual({ alive: false, pid: null });
  });

  it("reports a listener that never answers as alive with an unknown pid", async () => {
    await startServer(async () => new Promise<IpcResult>(() => {}));
    expect(await probeSocket(path, 100)).toEqual({ alive: true, pid: null });
  });

  it("does not take whispers queued for the agent", async () => {
    const s = await startServer();
    s.sendWhisper({ action: "CORRECTION", message: "for the agent" });
    await probeSocket(path, 2000);
    const c = await connectClient();
    await c.request("echo");
    expect(c.whispers).toEqual([{ whisper_type: "CORRECTION", message: "for the agent" }]);
  });
});

describe("requestId", () => {
  it("makes distinct version-4 UUIDs", () => {
    const ids = Array.from({ length: 20_000 }, () => requestId());
    for (const id of ids.slice(0, 500)) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe("the ipc-client entry is lean", () => {
  it("imports node builtins and json-lines only", () => {
    const src = readFileSync(new URL("../src/ipc/ipc-client.ts", import.meta.url), "utf8");
    const imports = [...src.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]);
    expect(imports.sort()).toEqual(["./json-lines.js", "node:net"]);
    const jl = readFileSync(new URL("../src/ipc/json-lines.ts", import.meta.url), "utf8");
    expect(jl).not.toMatch(/^import /m);
  });
});
