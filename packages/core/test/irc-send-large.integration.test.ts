/**
 * A 1 MB `irc_send` against a real daemon on the embedded server: the split used to be
 * quadratic (150,000 characters froze the daemon for 25 s, 1 MB for minutes), and nothing
 * else was answered meanwhile. Now the send is answered at once and status requests sent
 * alongside it are answered too; a long text still arrives whole, in 512-byte lines.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "@culture/server";
import { IpcClient } from "../src/ipc/ipc-client.js";
import { socketPath } from "../src/paths.js";
import { connectRawClient, parseRawLine } from "../src/testing/irc-servers.js";
import { startTestDaemon, type TestDaemon } from "./helpers/daemon-harness.js";

describe("a 1 MB irc_send", () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  let d: TestDaemon;

  beforeAll(async () => {
    server = await startServer({ host: "127.0.0.1", port: 0, stateDir: null });
    d = await startTestDaemon({ port: server.port, nick: "spark-bot" });
  });
  afterAll(async () => {
    await d?.stop();
    await server?.close();
  });

  it("is answered while status requests keep being answered, and a long text arrives whole", async () => {
    const path = socketPath(d.nick, d.env);
    const sender = await IpcClient.connect(path);
    const poller = await IpcClient.connect(path);
    try {
      const huge = "word ".repeat(200_000); // 1,000,000 characters
      let sendDone = false;
      const send = sender.request("irc_send", { channel: "#test", message: huge }, { timeoutMs: 0 }).finally(() => {
        sendDone = true;
      });
      const statuses: boolean[] = [];
      while (!sendDone) statuses.push((await poller.request("status", {}, { timeoutMs: 0 })).ok);
      const answer = await send;
      // 2,500 lines do not fit the 1,000-line send queue: a clear error, not a frozen daemon.
      expect(answer.ok).toBe(false);
      expect(String(answer.error)).toMatch(/queue/i);
      expect(statuses.length).toBeGreaterThan(0);
      expect(statuses.every(Boolean)).toBe(true);
      // The daemon is still responsive and a long (but queueable) text arrives whole.
      const alice = await connectRawClient(server.port, "alice");
      try {
        await alice.join("#test");
        const long = Array.from({ length: 600 }, (_, i) => `w${i}`).join(" ");
        const from = alice.lines.length;
        const ok = await sender.request("irc_send", { channel: "#test", message: long });
        expect(ok.ok).toBe(true);
        await alice.waitFor((_line, p) => p.command === "PRIVMSG" && (p.params[1] ?? "").endsWith("w599"), 30_000);
        const mine = alice.since(from).filter((line) => parseRawLine(line).command === "PRIVMSG");
        for (const line of mine) expect(Buffer.byteLength(line) + 2).toBeLessThanOrEqual(512);
        const got = mine.map((line) => parseRawLine(line).params[1] ?? "");
        expect(got.join(" ")).toBe(long);
      } finally {
        await alice.close();
      }
    } finally {
      sender.close();
      poller.close();
    }
  });
});
