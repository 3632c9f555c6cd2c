// Hostile and broken clients must not hurt the server or anyone else: oversized lines (417),
// invalid UTF-8 and garbage, floods (throttled, then disconnected), too many connections from
// one IP, clients that stop reading (SendQ), and silent or half-open connections (PING, then
// reaped). Timings are short and configurable; assertions are about order, not durations.
import { writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startServer, type IrcServer, type ServerOptions } from "../src/index.js";
import { RawClient } from "./helpers/raw-client.js";

const open: RawClient[] = [];
const servers: IrcServer[] = [];
const serve = async (opts: ServerOptions = {}): Promise<IrcServer> => {
  const s = await startServer({ port: 0, stateDir: null, ...opts });
  servers.push(s);
  return s;
};
const user = async (s: IrcServer, nick: string, caps?: string[]): Promise<RawClient> => {
  const c = await RawClient.register(s.port, nick, { caps });
  open.push(c);
  return c;
};
const P = (nick: string): string => `${nick}!~${nick}@127.0.0.1`;
// The flood and SendQ tests move a few MB through real sockets: room for a loaded 2-core machine.
const ROOMY = { timeout: 30_000 };

afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe("line limits", () => {
  it("answers 417 to a line over 512 bytes, or with over 8191 bytes of tags, and keeps the connection", async () => {
    const s = await serve();
    const a = await user(s, "longline");
    const b = await user(s, "listener");
    for (const c of [a, b]) {
      c.send("JOIN #len");
      await c.waitFor(/ 366 /);
    }
    await a.sync();
    a.send(`PRIVMSG #len :${"x".repeat(500)}`); // 514 bytes with CR LF
    expect(await a.next()).toBe(":culture.local 417 longline :Input line was too long");
    a.send(`@+big=${"t".repeat(8200)} PRIVMSG #len :small`);
    expect(await a.next()).toBe(":culture.local 417 longline :Input line was too long");
    a.sendRaw(`PRIVMSG #len :${"y".repeat(20000)}`); // no line end at all
    expect(await a.next()).toBe(":culture.local 417 longline :Input line was too long");
    a.sendRaw("more of the same line\r\n");
    const ok = `PRIVMSG #len :${"z".repeat(510 - 14)}`; // exactly 512 with CR LF
    a.send(ok);
    expect(await b.waitFor(/PRIVMSG/)).toBe(`:${P("longline")} PRIVMSG #len :${"z".repeat(496)}`.slice(0, 510));
    expect(await a.sync()).toEqual([]);
  });
});

describe("bad bytes", () => {
  it("tolerates invalid UTF-8, NULs and garbage lines, and relays text lossily", async () => {
    const s = await serve();
    const a = await user(s, "mangler");
    const b = await user(s, "receiver");
    for (const c of [a, b]) {
      c.send("JOIN #bytes");
      await c.waitFor(/ 366 /);
    }
    await a.sync();
    a.sendRaw(Buffer.concat([Buffer.from("PRIVMSG #bytes :bad "), Buffer.from([0xc3, 0x28, 0xa0, 0xa1, 0xf0, 0x90, 0x00, 0xff]), Buffer.from(" end\r\n")]));
    const got = await b.waitFor(/PRIVMSG/);
    expect(got.startsWith(`:${P("mangler")} PRIVMSG #bytes :bad `)).toBe(true);
    expect(got.endsWith(" end")).toBe(true);
    expect(got).toContain("\ufffd");
    expect(got).not.toContain("\0");
    a.sendRaw(Buffer.from([0x4e, 0x49, 0x43, 0x4b, 0x20, 0xff, 0xfe, 0x0d, 0x0a])); // NICK <bad bytes>
    expect(await a.next()).toBe(":culture.local 432 mangler \ufffd\ufffd :Erroneous nickname");
    for (const junk of ["@", "@a=b", ":", ":only.prefix", "   ", "@;;; :x", "\u0001\u0002\u0003", "PRIVMSG", "MODE", "@x=\\ PING"]) a.send(junk);
    a.sendRaw(Buffer.alloc(300, 0xff));
    a.send("");
    expect(await a.sync()).toEqual(expect.arrayContaining([":culture.local 461 mangler MODE :Not enough parameters"]));
    b.send("PING :alive");
    expect(await b.next()).toBe(":culture.local PONG culture.local :alive");
  });
});

describe("flood control", ROOMY, () => {
  it("throttles a flooder without delaying anyone else, keeping the flooder's own order", async () => {
    const s = await serve({ flood: { burst: 5, perSecond: 100, maxQueued: 1000 } });
    const flooder = await user(s, "flooder");
    const other = await user(s, "bystander");
    for (const c of [flooder, other]) {
      c.send("JOIN #flood");
      await c.waitFor(/ 366 /);
    }
    await flooder.sync();
    await other.sync();
    const N = 200;
    flooder.sendRaw(Array.from({ length: N }, (_, i) => `PRIVMSG #flood :msg ${i}\r\n`).join("") + "PING :flooder-done\r\n");
    await other.waitFor(/ PRIVMSG #flood :msg 0$/);
    other.send("PING :me-first");
    await other.waitFor(/PONG culture\.local :me-first$/);
    const pong = other.lines.findIndex((l) => l.endsWith(":me-first"));
    // The bystander's PING was answered while most of the flood was still queued.
    const relayedBeforePong = other.lines.slice(0, pong).filter((l) => l.includes(" PRIVMSG #flood :msg ")).length;
    expect(relayedBeforePong).toBeLessThan(N / 2);
    // The flooder's commands all run, in order, its PING last.
    await flooder.waitFor(/PONG culture\.local :flooder-done$/, 20_000);
    await other.waitFor(` PRIVMSG #flood :msg ${N - 1}`, 20_000);
    const msgs = other.lines.filter((l) => l.includes(" PRIVMSG #flood :msg ")).map((l) => Number(l.split(" ").at(-1)));
    expect(msgs).toEqual(Array.from({ length: N }, (_, i) => i));
  });

  it("disconnects sustained abuse with Excess Flood; the others see the QUIT and carry on", async () => {
    const s = await serve({ flood: { burst: 5, perSecond: 1, maxQueued: 20 } });
    const flooder = await user(s, "abuser");
    const other = await user(s, "patient");
    for (const c of [flooder, other]) {
      c.send("JOIN #abuse");
      await c.waitFor(/ 366 /);
    }
    flooder.sendRaw(Array.from({ length: 100 }, (_, i) => `PRIVMSG #abuse :spam ${i}\r\n`).join(""));
    expect(await flooder.waitFor(/^ERROR/)).toBe("ERROR :Closing Link: 127.0.0.1 (Excess Flood)");
    await flooder.closed;
    expect(await other.waitFor(/QUIT/)).toBe(`:${P("abuser")} QUIT :Excess Flood`);
    other.send("PING :fine");
    expect(await other.waitFor(/PONG/)).toBe(":culture.local PONG culture.local :fine");
  });
});

describe("connection limits", ROOMY, () => {
  it("refuses anonymous registrations over the per-IP limit with an ERROR line", async () => {
    const s = await serve({ maxClientsPerIp: 2 });
    const a = await user(s, "first");
    await user(s, "second");
    const third = await RawClient.connect(s.port);
    open.push(third);
    third.send("NICK third");
    third.send("USER third 0 * :third");
    expect(await third.waitFor(/^ERROR/)).toBe("ERROR :Closing Link: 127.0.0.1 (Too many connections from your IP)");
    await third.closed;
    await a.close();
    // The server notices the close asynchronously: the next attempt (or one soon after) is let in.
    let admitted: RawClient | null = null;
    for (let i = 0; i < 100 && !admitted; i++) {
      const c = await RawClient.connect(s.port);
      open.push(c);
      c.send(`NICK again${i}`);
      c.send("USER again 0 * :again");
      const line = await c.waitFor(/ 001 |^ERROR/);
      if (line.includes(" 001 ")) admitted = c;
      else await c.closed;
    }
    expect(admitted).not.toBeNull();
  });

  it("disconnects a client that stops reading once its SendQ is over the limit", async () => {
    const s = await serve({ flood: false, maxSendQBytes: 64 * 1024 });
    const stuck = await user(s, "stuck");
    const talker = await user(s, "talker");
    const witness = await user(s, "witness");
    for (const c of [stuck, talker, witness]) {
      c.send("JOIN #big");
      await c.waitFor(/ 366 /);
    }
    await witness.sync();
    stuck.socket.pause();
    const line = `PRIVMSG #big :${"w".repeat(400)}\r\n`;
    // Kernel buffers absorb a few MB before the server's own queue grows; send until it gives up.
    let quit = "";
    for (let round = 0; round < 200 && !quit; round++) {
      talker.sendRaw(line.repeat(500));
      await talker.sync();
      quit = witness.lines.find((l) => l.includes(" QUIT ")) ?? "";
    }
    expect(quit).toBe(`:${P("stuck")} QUIT :SendQ exceeded`);
    stuck.socket.resume();
    await stuck.closed;
  });
});

describe("liveness", ROOMY, () => {
  it("PINGs an idle client and keeps it while it answers", async () => {
    const s = await serve({ idleTimeoutMs: 100, pingTimeoutMs: 300 });
    const c = await user(s, "responsive");
    for (let i = 0; i < 3; i++) {
      expect(await c.waitFor(/^PING/)).toBe("PING :culture.local");
      c.send("PONG :culture.local");
    }
    expect(s.clientCount).toBe(1);
  });

  it("reaps a client that does not answer (a half-open connection), telling its peers", async () => {
    const s = await serve({ idleTimeoutMs: 100, pingTimeoutMs: 100 });
    const peer = await user(s, "peer");
    const silent = await user(s, "silent");
    for (const c of [peer, silent]) {
      c.send("JOIN #live");
      await c.waitFor(/ 366 /);
    }
    // `peer` keeps talking; `silent` never answers its PING.
    const keepAlive = setInterval(() => peer.send("PONG :culture.local"), 20);
    try {
      expect(await silent.waitFor(/^PING/)).toBe("PING :culture.local");
      expect(await silent.waitFor(/^ERROR/)).toBe("ERROR :Closing Link: 127.0.0.1 (Ping timeout: 1 seconds)");
      await silent.closed;
      expect(await peer.waitFor(/QUIT/)).toBe(`:${P("silent")} QUIT :Ping timeout: 1 seconds`);
      expect(s.clientCount).toBe(1);
    } finally {
      clearInterval(keepAlive);
    }
  });

  it("disconnects a connection that never registers", async () => {
    const s = await serve({ registrationTimeoutMs: 100 });
    const c = await RawClient.connect(s.port);
    open.push(c);
    c.send("NICK almost");
    expect(await c.waitFor(/^ERROR/)).toBe("ERROR :Closing Link: 127.0.0.1 (Registration timeout)");
    await c.closed;
    const again = await user(s, "almost"); // the reserved nick was freed
    expect(again.lines.some((l) => l.includes(" 001 almost "))).toBe(true);
  });

  it("says goodbye to every client on close()", async () => {
    const s = await serve();
    const c = await user(s, "leftover");
    await s.close();
    expect(await c.waitFor(/^ERROR/)).toBe("ERROR :Closing Link: 127.0.0.1 (Server shutting down)");
    await c.closed;
    await s.close(); // idempotent
  });
});

describe("startServer errors", () => {
  it("rejects a taken port with E_SERVER_LISTEN and an actionable message", async () => {
    const s = await serve();
    const err = await startServer({ port: s.port, stateDir: null }).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: "CultureError", code: "E_SERVER_LISTEN" });
    expect((err as Error).message).toBe(
      `culture's IRC server couldn't listen on 127.0.0.1:${s.port}: the port is already in use. ` +
        "Another IRC server is probably running there: stop it (culture server stop) or choose another port (--port N).",
    );
  });

  it("rejects an unusable state dir with E_SERVER_STATE", async () => {
    const dir = mkdtempSync(join(tmpdir(), "culture-ircd-bad-"));
    try {
      const file = join(dir, "not-a-dir");
      writeFileSync(file, "x");
      const err = await startServer({ port: 0, stateDir: file }).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: "E_SERVER_STATE" });
      expect((err as Error).message).toContain(`couldn't use its state dir ${file}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("rejects nonsense options with a RangeError naming the option", async () => {
    await expect(startServer({ port: 70000, stateDir: null })).rejects.toThrow("port must be an integer from 0 to 65535, got 70000");
    await expect(startServer({ port: 0, stateDir: null, idleTimeoutMs: 0 })).rejects.toThrow("idleTimeoutMs must be a positive number");
    await expect(startServer({ port: 0, stateDir: null, name: "nodot" })).rejects.toThrow("name must be a host-like name with a dot");
  });
});
