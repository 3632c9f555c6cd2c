/**
 * The test-server harness itself: real InspIRCd and ngIRCd processes, the raw client, and
 * two linked InspIRCd servers.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import {
  IRC_SERVER_BINARIES,
  connectRawClient,
  parseRawLine,
  startIrcServer,
  startLinkedInspircd,
} from "../src/testing/irc-servers.js";

// InspIRCd takes about a second per client registration.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

function processUid(pidFile: string): number {
  const pid = Number(readFileSync(pidFile, "utf8").trim());
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
}

describe.each(["inspircd", "ngircd"] as const)("startIrcServer(%s)", (kind) => {
  it("starts ready for registration, survives kill and restart on the same port, and stops cleanly", async () => {
    const server = await startIrcServer(kind);
    try {
      expect(server.running).toBe(true);
      expect(server.host).toBe("127.0.0.1");
      const client = await connectRawClient(server.port, "harness1");
      expect(parseRawLine(client.lines.find((l) => / 001 /.test(l))!).prefix).toBe(server.serverName);
      if (process.getuid?.() === 0) {
        expect(processUid(join(server.dir, `${kind}.pid`))).toBe(65534); // nobody
      }

      await server.kill();
      expect(server.running).toBe(false);
      await client.waitFor(() => false, 5_000).catch(() => undefined);
      expect(client.closed).toBe(true);
      // (Not "the port refuses connections": tests run in parallel, and another one's server may
      // take the freed port at once. The closed client and the dead process are the proof.)

      await server.restart();
      expect(server.running).toBe(true);
      const again = await connectRawClient(server.port, "harness2");
      await again.join("#after-restart");
      await again.close();

      const dir = server.dir;
      await server.stop();
      expect(server.running).toBe(false);
      expect(existsSync(dir)).toBe(false);
      await server.stop();
    } finally {
      await server.stop();
    }
  });

  it("requires the configured connection password", async () => {
    const server = await startIrcServer(kind, { password: "letmein" });
    try {
      await expect(connectRawClient(server.port, "nopass", { timeoutMs: 3_000 })).rejects.toThrow(/could not register|closed|timed out/);
      const ok = await connectRawClient(server.port, "withpass", { password: "letmein" });
      await ok.close();
    } finally {
      await server.stop();
    }
  });
});

describe("the harness", () => {
  it("says how to install a missing server", async () => {
    const original = IRC_SERVER_BINARIES.ngircd;
    IRC_SERVER_BINARIES.ngircd = "/nonexistent/ngircd";
    try {
      await expect(startIrcServer("ngircd")).rejects.toThrow(/apt-get install -y inspircd ngircd/);
    } finally {
      IRC_SERVER_BINARIES.ngircd = original;
    }
  });

  it("raw client: waitFor advances past each match and records what it sent", async () => {
    const server = await startIrcServer("ngircd");
    try {
      const a = await connectRawClient(server.port, "rawa");
      const b = await connectRawClient(server.port, "rawb");
      await a.join("#raw");
      await b.join("#raw");
      a.send("PRIVMSG #raw :same");
      a.send("PRIVMSG #raw :same");
      const first = b.lines.length;
      await b.waitFor(/PRIVMSG #raw :same/);
      await b.waitFor(/PRIVMSG #raw :same/);
      expect(b.since(first).filter((l) => l.includes("PRIVMSG"))).toHaveLength(2);
      await expect(b.waitFor(/PRIVMSG #raw :same/, 300)).rejects.toThrow(/timed out after 300 ms/);
      expect(a.sent).toContain("PRIVMSG #raw :same");
      await a.close();
      await b.close();
      expect(b.closed).toBe(true);
    } finally {
      await server.stop();
    }
  });

  it("links two InspIRCd servers so clients on either see each other", async () => {
    const net = await startLinkedInspircd();
    try {
      const onA = await connectRawClient(net.a.port, "linka", { caps: ["message-tags", "server-time"] });
      const onB = await connectRawClient(net.b.port, "linkb", { caps: ["message-tags", "server-time"] });
      await onA.join("#linked");
      await onB.join("#linked");
      await onA.waitFor(/:linkb!\S+ JOIN :?#linked/);
      onA.send("PRIVMSG #linked :across the link");
      const line = await onB.waitFor(/PRIVMSG #linked :across the link/);
      const parsed = parseRawLine(line);
      expect(parsed.nick).toBe("linka");
      expect(parsed.tags.time).toMatch(/^\d{4}-\d\d-\d\dT/);
      await onA.close();
      await onB.close();
    } finally {
      await net.stop();
    }
  });
});

describe("parseRawLine", () => {
  it.each([
    [":nick!user@host PRIVMSG #c :hello world", { tags: {}, prefix: "nick!user@host", nick: "nick", command: "PRIVMSG", params: ["#c", "hello world"] }],
    ["@time=2026-01-01T00:00:00Z;x :srv.test 001 me :Welcome", { tags: { time: "2026-01-01T00:00:00Z", x: "" }, prefix: "srv.test", nick: "", command: "001", params: ["me", "Welcome"] }],
    ["PING :token", { tags: {}, prefix: "", nick: "", command: "PING", params: ["token"] }],
    [":n!u@h JOIN #c", { tags: {}, prefix: "n!u@h", nick: "n", command: "JOIN", params: ["#c"] }],
    [":n!u@h PRIVMSG #c ::colon", { tags: {}, prefix: "n!u@h", nick: "n", command: "PRIVMSG", params: ["#c", ":colon"] }],
  ])("%j", (line, expected) => {
    expect(parseRawLine(line)).toEqual(expected);
  });
});
