/**
 * Presence across a network: an agent on InspIRCd server A, a watcher on linked server B. The
 * watcher sees the agent's state change live (AWAY with away-notify, the presence line in the
 * presence channel, WHOIS), the running tool and its progress in status and the log (secrets
 * masked), and the hung watchdog: a tool that runs silently past `stall_seconds` makes the
 * agent `stalled` (one #alerts line, the webhook), and the next event makes it normal again.
 */
import { existsSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../src/logger.js";
import { parsePresenceLine } from "../src/daemon/presence-state.js";
import { connectRawClient, parseRawLine, startLinkedInspircd, type LinkedIrcServers, type RawIrcClient } from "../src/testing/irc-servers.js";
import { eventually, startTestDaemon, type TestDaemon } from "./helpers/daemon-harness.js";

const NICK = "spark-alpha";

describe("presence on a linked network", () => {
  let net: LinkedIrcServers;
  let agent: TestDaemon;
  let watcher: RawIrcClient;
  let http: Server;
  const hooks: Array<{ event: string; content: string }> = [];
  const log: string[] = [];

  beforeAll(async () => {
    http = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        hooks.push(JSON.parse(body));
        res.end("ok");
      });
    });
    await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
    const port = (http.address() as { port: number }).port;
    net = await startLinkedInspircd();
    agent = await startTestDaemon({
      port: net.a.port,
      nick: NICK,
      agent: { stall_seconds: 3 },
      config: { presence: { channel: "#culture-presence", min_interval_seconds: 0.2 }, webhooks: { url: `http://127.0.0.1:${port}/hook` } },
      logger: createLogger({ level: "info", scope: NICK, write: (line) => log.push(line) }),
    });
    watcher = await connectRawClient(net.b.port, "watcher", { caps: ["away-notify"] });
    await watcher.join("#test");
    await watcher.join("#alerts");
    await watcher.join("#culture-presence");
  });
  afterAll(async () => {
    await watcher?.close().catch(() => undefined);
    await agent?.stop().catch(() => undefined);
    await net?.stop();
    await new Promise((r) => http?.close(r));
  });

  const presence = (state: string) => (line: string) => {
    const p = parseRawLine(line);
    if (p.command !== "NOTICE" || p.nick !== NICK || p.params[0]?.toLowerCase() !== "#culture-presence") return false;
    return parsePresenceLine(p.params[1] ?? "")?.state === state;
  };
  const away = (text: RegExp | null) => (line: string) => {
    const p = parseRawLine(line);
    if (p.command !== "AWAY" || p.nick !== NICK) return false;
    return text === null ? p.params.length === 0 : text.test(p.params[0] ?? "");
  };

  it("answers a watcher's query on another server with its presence line", async () => {
    watcher.send("NOTICE #culture-presence :culture-presence?");
    const line = await watcher.waitFor(presence("idle"), 15_000);
    const p = parsePresenceLine(parseRawLine(line).params[1]!)!;
    expect(p).toMatchObject({ v: 1, state: "idle", queued: 0, approvals: 0 });
  });

  it("shows the running tool on the other server, in status and in the log; the watchdog marks a silent tool stalled and clears it on the next event", async () => {
    const gate = join(agent.home, "gate");
    // A tool that runs until the test opens the gate; its command line carries a secret.
    const command = `PGPASSWORD=hunter2 sh -c 'while [ ! -e ${gate} ]; do sleep 0.05; done; echo released'`;
    watcher.send(`PRIVMSG #test :@${NICK} exec ${command}`);
    await watcher.waitFor(away(/^running Bash for \d+s: /), 15_000);
    const status = agent.daemon.status();
    expect(status.tool).toMatchObject({ name: "Bash" });
    expect((status.tool as { input: string }).input).toContain("PGPASSWORD=***");
    expect((status.tool as { input: string }).input).not.toContain("hunter2");
    expect(status.description).toMatch(/running Bash for \d+s\)?; answering watcher in #test: @spark-alpha exec PGPASSWORD=\*\*\* sh/);
    await watcher.waitFor(presence("running"), 15_000);
    const running = parsePresenceLine(parseRawLine(watcher.lines.filter(presence("running")).at(-1)!).params[1]!)!;
    expect(running.tool).toBe("Bash");
    expect(running.toolSince).toBeGreaterThan(Date.now() / 1000 - 60);

    // WHOIS from server B shows the away text (301).
    watcher.send(`WHOIS ${NICK}`);
    const whois = await watcher.waitFor((l) => parseRawLine(l).command === "301", 10_000);
    expect(parseRawLine(whois).params.at(-1)).toMatch(/^running Bash for \d+s/);

    // No event for stall_seconds (3 s): stalled, one alert on IRC and one webhook.
    await watcher.waitFor(presence("stalled"), 15_000);
    const alert = await watcher.waitFor((l) => parseRawLine(l).command === "PRIVMSG" && parseRawLine(l).params[0] === "#alerts" && /\[STALLED\]/.test(l), 15_000);
    expect(parseRawLine(alert).params[1]).toMatch(new RegExp(`^\\[STALLED\\] ${NICK} has sent no agent event for \\d+s \\(running Bash\\) on ".*exec PGPASSWORD=\\*\\*\\*`));
    await eventually(() => hooks.some((h) => h.event === "agent_timeout" && h.content.startsWith("[STALLED]")), "the stall webhook");
    expect(agent.daemon.status().presence).toMatchObject({ state: "stalled", stall_seconds: 3 });
    expect(watcher.lines.filter(away(/^stalled: no agent event for \d+s \(running Bash\): @spark-alpha exec PGPASSWORD=\*\*\* /))).toHaveLength(1);

    // The tool ends: an event again, the turn ends, idle; AWAY is cleared.
    writeFileSync(gate, "");
    await watcher.waitFor(away(null), 15_000);
    await watcher.waitFor(presence("idle"), 15_000);
    expect(existsSync(gate)).toBe(true);
    expect(watcher.lines.filter((l) => /\[STALLED\]/.test(l))).toHaveLength(1);
    expect(hooks.filter((h) => h.content.startsWith("[STALLED]"))).toHaveLength(1);

    const done = log.find((l) => l.includes("tool Bash done in"));
    expect(done).toBeDefined();
    expect(done).toContain("PGPASSWORD=***");
    expect(log.join("\n")).not.toContain("hunter2");
    expect(watcher.lines.filter((l) => parseRawLine(l).nick === NICK && l.includes("hunter2"))).toEqual([]);
    expect(log.some((l) => l.includes("no longer stalled"))).toBe(true);
  });

  it("says thinking as a turn begins, before the agent's first event, and idle after it", async () => {
    const from = watcher.lines.length;
    // The agent sends nothing for 2 s, then answers: presence must not wait for its first event.
    watcher.send(`PRIVMSG #test :@${NICK} sleep 2000 slept`);
    await watcher.waitFor((l) => presence("thinking")(l) && watcher.lines.indexOf(l) >= from, 15_000);
    const replied = watcher.lines.findIndex((l, i) => i >= from && parseRawLine(l).command === "PRIVMSG" && parseRawLine(l).nick === NICK && /slept/.test(l));
    expect(replied).toBe(-1); // thinking came before the reply
    expect(agent.daemon.status().presence).toMatchObject({ state: "thinking" });
    await watcher.waitFor((l) => parseRawLine(l).command === "PRIVMSG" && parseRawLine(l).nick === NICK && /slept/.test(l), 15_000);
    await watcher.waitFor((l) => presence("idle")(l) && watcher.lines.indexOf(l) >= from, 15_000);
  });

  it("never treats presence lines as talk (they are not buffered, never prompts)", async () => {
    watcher.send(`PRIVMSG #culture-presence :@${NICK} echo this is not a prompt`);
    watcher.send(`PRIVMSG #test :@${NICK} ping`);
    await watcher.waitFor((l) => parseRawLine(l).command === "PRIVMSG" && parseRawLine(l).nick === NICK && /ping/.test(l), 15_000);
    expect(watcher.lines.some((l) => /this is not a prompt/.test(l) && parseRawLine(l).nick === NICK)).toBe(false);
  });

  it("announces no start that is over within min_interval_seconds: a second agent's JOIN, its idle line, and no AWAY", async () => {
    // In a fleet every daemon's `AWAY :starting` and the `AWAY` after it went to every other
    // daemon in its channels (issue 30); a fresh connection already shows an agent as not away.
    const beta = "spark-beta";
    const from = watcher.lines.length;
    const second = await startTestDaemon({
      port: net.a.port,
      nick: beta,
      // The default interval: this start is over well within it.
      config: { presence: { channel: "#culture-presence", min_interval_seconds: 2 } },
      logger: createLogger({ level: "silent" }),
    });
    try {
      await watcher.waitFor((l) => parseRawLine(l).command === "JOIN" && parseRawLine(l).nick === beta, 15_000);
      await watcher.waitFor((l) => {
        const p = parseRawLine(l);
        return p.command === "NOTICE" && p.nick === beta && parsePresenceLine(p.params[1] ?? "")?.state === "idle";
      }, 15_000);
      // Past another interval: an AWAY pair would have come by now.
      await new Promise((r) => setTimeout(r, 600));
      const mine = watcher.lines.slice(from).map(parseRawLine).filter((p) => p.nick === beta);
      expect(mine.filter((p) => p.command === "AWAY").map((p) => p.params)).toEqual([]);
      expect(mine.filter((p) => p.command === "NOTICE").map((p) => parsePresenceLine(p.params[1] ?? "")?.state)).toEqual(["idle"]);
    } finally {
      await second.stop();
    }
  });
});
