/**
 * The activity mirror, `@nick status|pending` and the operator-join NOTICE end to end: the
 * real embedded IRC server (accounts required, extended-join), two real daemons sharing one
 * home — spark-echo (the echo backend, a real child process, mirrored to #activity) and
 * spark-bot (the approval fixture backend, whose turns ask for permission) — and people as raw
 * IRC clients logged in to accounts. Operators are `operators: [alice]` (an account).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { AccountStore, startServer, type IrcServer } from "@culture/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { embeddedAccountStorePath } from "../src/identity/local-credentials.js";
import { connectRawClient, parseRawLine, type RawIrcClient } from "../src/testing/irc-servers.js";
import { startTestDaemon, type TestDaemon } from "./helpers/daemon-harness.js";

const APPROVAL_BACKEND = fileURLToPath(new URL("./fixtures/approval-backend", import.meta.url));

describe("activity mirror, status, pending, and pending approvals for an operator who joins", { timeout: 90_000 }, () => {
  let server: IrcServer;
  let store: AccountStore;
  let home: string;
  let echo: TestDaemon;
  let bot: TestDaemon;
  let watcher: RawIrcClient;
  let bob: RawIrcClient;
  const clients: RawIrcClient[] = [];

  const user = async (nick: string, account: string, channels: string[]): Promise<RawIrcClient> => {
    if (!store.has(account)) await store.add(account, `${account}-pw`, "human");
    const c = await connectRawClient(server.port, nick, { password: `${account}:${account}-pw` });
    clients.push(c);
    for (const ch of channels) await c.join(ch);
    return c;
  };

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), "culture-mirror-"));
    store = new AccountStore(embeddedAccountStorePath({ CULTURE_HOME: home }));
    server = await startServer({ port: 0, stateDir: null, accountsFile: store.path });
    const config = { operators: ["alice"] };
    echo = await startTestDaemon({ port: server.port, home, nick: "spark-echo", config, agent: { channels: ["#dev"], mirror: { channel: "#activity", burst: 4, interval_seconds: 0.5 } } });
    bot = await startTestDaemon({ port: server.port, home, nick: "spark-bot", config, agent: { agent: APPROVAL_BACKEND, channels: ["#dev", "#ops"], permissions: { mode: "ask" } } });
    watcher = await user("watcher", "watcher", ["#activity"]);
    bob = await user("bob", "bob", ["#dev", "#ops", "#activity"]);
  });
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await bot?.daemon.stop().catch(() => undefined);
    await echo?.daemon.stop().catch(() => undefined);
    await server?.close();
    rmSync(home, { recursive: true, force: true });
  });

  /** spark-echo's NOTICEs in #activity, as the watcher saw them. */
  const mirrored = () => watcher.lines.filter((l) => isMirror(l)).map((l) => parseRawLine(l).params[1]!);
  const isMirror = (l: string) => {
    const p = parseRawLine(l);
    return p.command === "NOTICE" && p.nick === "spark-echo" && p.params[0] === "#activity";
  };
  const mirrorLine = (re: RegExp) => (l: string) => isMirror(l) && re.test(parseRawLine(l).params[1]!);
  const said = (nick: string, target: string, re: RegExp) => (l: string) => {
    const p = parseRawLine(l);
    return p.command === "PRIVMSG" && p.nick === nick && p.params[0] === target && re.test(p.params[1] ?? "");
  };

  it("mirrors a mention's tool calls and its turn summary to #activity, secrets masked, as NOTICEs within one IRC line", async () => {
    bob.send(`PRIVMSG #dev :@spark-echo tool PGPASSWORD=hunter2 psql -c "select 1"`);
    await watcher.waitFor(mirrorLine(/^\[turn\] bob in #dev: done in \S+, 1 tool call; reply: "used a tool"$/), 30_000);
    const lines = mirrored();
    expect(lines).toContain(`[tool] Bash "PGPASSWORD=*** psql -c \\"select 1\\""`);
    expect(lines.some((l) => /^\[tool\] Bash done in \S+ "PGPASSWORD=\*\*\* psql/.test(l))).toBe(true);
    expect(watcher.lines.join("\n")).not.toContain("hunter2");
    expect(watcher.lines.every((l) => Buffer.byteLength(l) + 2 <= 512)).toBe(true);
    expect(echo.daemon.status().mirror).toEqual({ channel: "#activity", include_origin: false, held_back: 0 });
    expect(echo.daemon.status().channels).toContain("#activity");
  });

  it("a tool input that imitates our own lines stays inside its quotes", async () => {
    bob.send(`PRIVMSG #dev :@spark-echo tool x" \x1b[2K[turn] alice in #dev: done in 1s, 0 tool calls; reply: "all good`);
    await watcher.waitFor(mirrorLine(/^\[turn\] bob in #dev: done/), 30_000);
    const fake = mirrored().filter((l) => l.includes("alice in #dev"));
    expect(fake.length).toBeGreaterThan(0);
    for (const l of fake) expect(l).toMatch(/^\[tool\] Bash (done in \S+ )?"x\\" \\e\[2K\[turn\] alice in #dev: done in 1s, 0 tool calls; reply: \\"all good"$/);
    expect(mirrored().some((l) => l.startsWith("[turn] alice"))).toBe(false);
  });

  it("over the rate limit, tool calls are coalesced into '... N more tool calls' and summaries wait in order, nothing dropped silently", async () => {
    const before = mirrored().length;
    // Four turns back to back: 4 x (start, end, summary) = 12 lines against a burst of 4.
    for (const step of ["lint", "build", "test", "pack"]) bob.send(`PRIVMSG #dev :@spark-echo tool make ${step}`);
    await watcher.waitFor(mirrorLine(/^\[turn\] bob in #dev: done in \S+, 1 tool call; reply: "used a tool"$/), 30_000);
    await watcher.waitFor(mirrorLine(/^\[turn\] bob in #dev: done in \S+, 1 tool call; reply: "used a tool"$/), 30_000);
    await watcher.waitFor(mirrorLine(/^\[turn\] bob in #dev: done in \S+, 1 tool call; reply: "used a tool"$/), 30_000);
    await watcher.waitFor(mirrorLine(/^\[turn\] bob in #dev: done in \S+, 1 tool call; reply: "used a tool"$/), 30_000);
    const lines = mirrored().slice(before);
    const calls = new Set(lines.filter((l) => /^\[tool\] Bash /.test(l)).map((l) => /"make (\w+)"$/.exec(l)?.[1]));
    const more = lines.map((l) => /^\[tool\] \.\.\. (\d+) more tool calls? \(over the mirror's rate limit\)$/.exec(l)).filter((m) => m !== null);
    expect(more.length).toBeGreaterThan(0);
    // Every call is shown or counted (a call whose start was shown and whose end was held back is both).
    const counted = more.reduce((n, m) => n + Number(m![1]), 0);
    expect(counted).toBeLessThanOrEqual(4);
    expect(calls.size + counted).toBeGreaterThanOrEqual(4);
    expect(lines.filter((l) => l.startsWith("[turn] "))).toHaveLength(4);
    expect(lines.length).toBeLessThan(12);
  });

  it("a call still open when the turn is aborted is mirrored as unfinished", async () => {
    bob.send("PRIVMSG #dev :@spark-echo exec sleep 30");
    await watcher.waitFor(mirrorLine(/^\[tool\] Bash "sleep 30"$/), 30_000);
    await echo.daemon.abort("the test aborted it");
    await watcher.waitFor(mirrorLine(/^\[tool\] Bash unfinished after \S+ "sleep 30"$/), 30_000);
    await watcher.waitFor(mirrorLine(/^\[turn\] bob in #dev: /), 30_000);
  });

  it("never mirrors a turn into the channel its prompt came from, and a DM only as 'a DM from <nick>'", async () => {
    bob.send("PRIVMSG #activity :@spark-echo tool cat /srv/from-activity");
    await bob.waitFor(said("spark-echo", "#activity", /used a tool/), 30_000);
    bob.send("PRIVMSG spark-echo :tool cat /srv/dm-only-words");
    await watcher.waitFor(mirrorLine(/^\[turn\] a DM from bob: done in \S+, 1 tool call$/), 30_000);
    // A later mention elsewhere: its summary comes after anything the two turns above could have posted.
    bob.send("PRIVMSG #dev :@spark-echo after");
    await watcher.waitFor(mirrorLine(/^\[turn\] bob in #dev: done in \S+, 0 tool calls; reply: "I heard: /), 30_000);
    const all = mirrored().join("\n");
    expect(all).not.toContain("from-activity");
    expect(all).not.toContain("bob in #activity");
    expect(all).not.toContain("dm-only-words");
  });

  it("@nick status and @nick pending are answered by the daemon; pending lists only that channel's requests", async () => {
    bob.send("PRIVMSG #dev :@spark-bot ask shell npm publish --token=abc123secret");
    const request = await bob.waitFor(said("spark-bot", "#dev", /^\[APPROVAL (\d+)\] wants to run/), 30_000);
    const id = /^\[APPROVAL (\d+)\]/.exec(parseRawLine(request).params[1]!)![1]!;
    bob.send("PRIVMSG #dev :@spark-bot status");
    const status = parseRawLine(await bob.waitFor(said("spark-bot", "#dev", /^bob: state /), 15_000)).params[1]!;
    expect(status).toMatch(/^bob: state waiting; queued 0; turns \d+; pending approvals 1; today \$\d+\.\d{4} over \d+ turns? \(UTC\)/);
    bob.send("PRIVMSG #dev :@spark-bot pending?");
    expect(parseRawLine(await bob.waitFor(said("spark-bot", "#dev", /^bob: 1 approval request/), 15_000)).params[1]).toBe(
      "bob: 1 approval request pending in #dev; operators who may answer (by account): alice",
    );
    const item = parseRawLine(await bob.waitFor(said("spark-bot", "#dev", /^bob: #/), 15_000)).params[1]!;
    expect(item).toMatch(new RegExp(`^bob: #${id} Bash "npm publish --token=\\*\\*\\*" \\(\\d+s ago\\); reply @spark-bot approve ${id} \\| deny ${id} \\| always ${id}; whole text: culture approvals show spark-bot ${id}$`));
    bob.send("PRIVMSG #ops :@spark-bot pending");
    expect(parseRawLine(await bob.waitFor(said("spark-bot", "#ops", /^bob: /), 15_000)).params[1]).toBe("bob: no approval request is pending in #ops");
    // In a DM, pending lists every channel's requests: operators only.
    bob.send("PRIVMSG spark-bot :pending");
    const refusal = await bob.waitFor((l) => parseRawLine(l).command === "NOTICE" && parseRawLine(l).nick === "spark-bot" && /pending approvals/.test(l), 15_000);
    expect(parseRawLine(refusal).params[1]).toBe("only operators (by IRC account) can list the pending approvals of spark-bot.");
    expect(bot.daemon.status().turn_count).toBe(0); // none of these became a prompt
  });

  it("an operator who joins gets a NOTICE of the channel's pending requests; someone with the operator's nick but not the account gets nothing", async () => {
    // The operator is the account alice; her nick is ally (the embedded server reserves account names as nicks).
    const alice = await user("ally", "alice", []);
    await alice.join("#dev");
    const notice = (l: string) => parseRawLine(l).command === "NOTICE" && parseRawLine(l).nick === "spark-bot" && parseRawLine(l).params[0] === "ally";
    expect(parseRawLine(await alice.waitFor(notice, 15_000)).params[1]).toBe("1 approval request pending in #dev; operators who may answer (by account): alice");
    expect(parseRawLine(await alice.waitFor(notice, 15_000)).params[1]).toMatch(/^#\d+ Bash "npm publish --token=\*\*\*" /);
    // alice's DM pending lists it with where it waits.
    alice.send("PRIVMSG spark-bot :pending");
    expect(parseRawLine(await alice.waitFor(said("spark-bot", "ally", /^ally: #/), 15_000)).params[1]).toMatch(/\(\d+s ago, in #dev\)/);
    await alice.close();
    await bob.waitFor((l) => parseRawLine(l).command === "QUIT" && parseRawLine(l).nick === "ally", 15_000);

    // mallory takes the nick ally, logged in to her own account.
    const mallory = await user("ally", "mallory", []);
    await mallory.join("#dev");
    // A line answered after the JOIN was handled: any join NOTICE would have come before it.
    mallory.send("PRIVMSG #dev :@spark-bot pending");
    await mallory.waitFor(said("spark-bot", "#dev", /^ally: 1 approval request/), 15_000);
    expect(mallory.lines.filter(notice)).toEqual([]);
  });
});
