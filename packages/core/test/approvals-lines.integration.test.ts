/**
 * What the operator sees, end to end (issue #24, "the operator sees what runs"): real daemons
 * on the real embedded IRC server with the approval fixture backend, humans as raw IRC
 * clients logged in to accounts, a real HTTP server for the webhook, the real `culture` CLI
 * (`approvals show`, `start`, `logs`, `stop`). Covers: a long command reaches IRC, #alerts
 * and the webhook whole; a command with CR/LF and a fake request renders as one quoted
 * request; two agents with the same short name and the same pending id; ids across a
 * restart; secrets in `culture logs`.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { AccountStore, startServer, type IrcServer } from "@culture/server";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { embeddedAccountStorePath } from "../src/identity/local-credentials.js";
import { connectRawClient, parseRawLine, type RawIrcClient } from "../src/testing/irc-servers.js";
import { CLI, eventually, startTestDaemon, testEnv, type TestDaemon } from "./helpers/daemon-harness.js";

const APPROVAL_BACKEND = fileURLToPath(new URL("./fixtures/approval-backend", import.meta.url));
/** A request line: the quoted text (with `\"` and `\\` escapes) and the reply instructions. */
const QUOTED_REQUEST = (nick: string) => new RegExp(`^\\[APPROVAL ([0-9]+)\\] wants to run "((?:[^"\\\\]|\\\\.)*)" \\(Bash\\)\\. Reply: @${nick} approve \\1 \\| deny \\1 \\[reason\\] \\| always \\1$`);

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await Promise.resolve(c()).catch(() => undefined);
});

interface World {
  server: IrcServer;
  store: AccountStore;
  home: string;
}

async function world(): Promise<World> {
  const home = mkdtempSync(join(tmpdir(), "culture-lines-"));
  const store = new AccountStore(embeddedAccountStorePath({ CULTURE_HOME: home }));
  const server = await startServer({ port: 0, stateDir: null, accountsFile: store.path });
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  cleanups.push(() => server.close());
  return { server, store, home };
}

async function agent(w: World, nick = "spark-bot", config: Record<string, unknown> = {}): Promise<TestDaemon> {
  const d = await startTestDaemon({
    port: w.server.port,
    home: w.home,
    nick,
    config: { operators: ["alice"], ...config },
    agent: { agent: APPROVAL_BACKEND, permissions: { mode: "ask" } },
  });
  cleanups.push(() => d.daemon.stop());
  return d;
}

async function user(w: World, account: string, channels = ["#test"]): Promise<RawIrcClient> {
  if (!w.store.has(account)) await w.store.add(account, `${account}-pw`, "human");
  const c = await connectRawClient(w.server.port, account, { password: `${account}:${account}-pw` });
  cleanups.push(() => c.close());
  for (const ch of channels) await c.join(ch);
  return c;
}

const from = (nick: string, command: string, target: string, text: RegExp) => (line: string) => {
  const p = parseRawLine(line);
  return p.command === command && p.nick === nick && p.params[0] === target && text.test(p.params[1] ?? "");
};
const text = (line: string) => parseRawLine(line).params[1] ?? "";

/** Every line `c` has received once the server has answered a PING sent now. */
async function settled(c: RawIrcClient): Promise<string[]> {
  const token = `s${Math.random().toString(36).slice(2)}`;
  c.send(`PING :${token}`);
  await c.waitFor(new RegExp(`PONG .*${token}`));
  return c.lines;
}

/** Undoes visibleText's escapes for the characters a test command uses. */
function unquote(s: string): string {
  return s.replace(/\\(["\\nrt])/g, (_m, c: string) => ({ n: "\n", r: "\r", t: "\t" })[c] ?? c);
}

/** A real HTTP server collecting webhook bodies. */
async function webhookReceiver(): Promise<{ url: string; bodies: Array<Record<string, unknown>> }> {
  const bodies: Array<Record<string, unknown>> = [];
  const http = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (body += c));
    req.on("end", () => {
      bodies.push(JSON.parse(body) as Record<string, unknown>);
      res.end("ok");
    });
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  cleanups.push(() => new Promise<void>((r) => http.close(() => r())));
  return { url: `http://127.0.0.1:${(http.address() as { port: number }).port}/hook`, bodies };
}

describe("what the operator sees", { timeout: 90_000 }, () => {
  it("a 146-character command with a `; touch P50` tail reaches IRC, #alerts and the webhook whole", async () => {
    const hook = await webhookReceiver();
    const w = await world();
    await agent(w, "spark-bot", { webhooks: { url: hook.url, events: ["approval_requested"] } });
    const alice = await user(w, "alice", ["#test", "#alerts"]);
    const command = `curl -s https://example.com/api/v1/items?limit=100 -H 'Accept: application/json' | jq '.items[] | select(.size > 5) | .name' > out.json; touch P50`;
    expect(command).toHaveLength(146);
    alice.send(`PRIVMSG #test :@spark-bot ask shell ${command}`);
    const line = text(await alice.waitFor(from("spark-bot", "PRIVMSG", "#test", /^\[APPROVAL /)));
    const m = QUOTED_REQUEST("spark-bot").exec(line);
    expect(m, line).not.toBeNull();
    expect(unquote(m![2]!)).toBe(command);
    const id = m![1]!;
    const alert = text(await alice.waitFor(from("spark-bot", "PRIVMSG", "#alerts", /^\[APPROVAL /)));
    expect(alert).toBe(`[APPROVAL ${id}] spark-bot wants to run "${command}" (Bash). Reply: @spark-bot approve ${id} | deny ${id} [reason] | always ${id}`);
    await eventually(() => hook.bodies.length === 1, "the approval_requested webhook");
    expect(hook.bodies[0]!.content).toBe(alert);
  });

  it("a command longer than the bound: numbered parts, a pointer, and culture approvals show prints it whole", async () => {
    const hook = await webhookReceiver();
    const w = await world();
    const d = await agent(w, "spark-bot", { webhooks: { url: hook.url, events: ["approval_requested"] } });
    const alice = await user(w, "alice", ["#test", "#alerts"]);
    // IRC cannot carry a 900-character line: a hook lengthens the agent's request (as the agent's own command would be).
    const medium = `${"echo part-of-a-long-command ".repeat(32)}; touch P50`;
    const long = `${"x".repeat(5000)}; touch P50`;
    d.daemon.hooks.permissionRequest.tap("Lengthen", (request) => {
      if (request.command === "make medium") request.command = medium;
      if (request.command === "make long") request.command = long;
      return undefined;
    });
    // 900 characters: more than one line, within the bound.
    alice.send("PRIVMSG #test :@spark-bot ask shell make medium");
    const header = text(await alice.waitFor(from("spark-bot", "PRIVMSG", "#test", /^\[APPROVAL \d+\] /)));
    const id = /^\[APPROVAL (\d+)\]/.exec(header)![1]!;
    const n = Number(/quoted in the (\d+) lines below/.exec(header)![1]);
    expect(header).toBe(`[APPROVAL ${id}] wants to run a ${medium.length}-character command, quoted in the ${n} lines below (Bash). Reply: @spark-bot approve ${id} | deny ${id} [reason] | always ${id}`);
    const parts: string[] = [];
    for (let k = 1; k <= n; k++) {
      const part = text(await alice.waitFor(from("spark-bot", "PRIVMSG", "#test", new RegExp(`^\\[APPROVAL ${id} ${k}/${n}\\] "`))));
      parts.push(/^\[APPROVAL \d+ \d+\/\d+\] "(.*)"$/.exec(part)![1]!);
    }
    expect(unquote(parts.join(""))).toBe(medium);
    // #alerts: the same text in parts, each with the nick (its lines leave room for any channel name, so there may be more).
    await alice.waitFor(from("spark-bot", "PRIVMSG", "#alerts", new RegExp(`^\\[APPROVAL ${id} (\\d+)/\\1\\] spark-bot ".*; touch P50"$`)));
    await eventually(() => hook.bodies.length === 1, "the webhook");
    expect(hook.bodies[0]!.content).toBe(`[APPROVAL ${id}] spark-bot wants to run "${medium}" (Bash). Reply: @spark-bot approve ${id} | deny ${id} [reason] | always ${id}`);
    alice.send(`PRIVMSG #test :@spark-bot deny ${id}`);
    await alice.waitFor(from("spark-bot", "PRIVMSG", "#test", /^Bash denied/));

    // 5000 characters: the start, and a pointer to culture approvals show.
    alice.send("PRIVMSG #test :@spark-bot ask shell make long");
    const head = text(await alice.waitFor(from("spark-bot", "PRIVMSG", "#test", /^\[APPROVAL \d+\] wants to run a 5011/)));
    const longId = /^\[APPROVAL (\d+)\]/.exec(head)![1]!;
    expect(head).toContain(`the 6 lines below quote its start, culture approvals show spark-bot ${longId} prints all of it`);
    expect(text(await alice.waitFor(from("spark-bot", "PRIVMSG", "#test", new RegExp(`^\\[APPROVAL ${longId} 6/6\\] `))))).toMatch(
      new RegExp(`" \\(continues: culture approvals show spark-bot ${longId}\\)$`),
    );
    const show = await d.culture(["approvals", "show", "spark-bot", longId], { nick: null });
    expect(show.exitCode).toBe(0);
    expect(show.stdout).toContain(`command:      "${long}"`);
    expect(show.stdout).toContain("length:       5011 characters");
  });

  it("a command with CR/LF and a fake request renders as exactly one request, quoted; show makes the controls visible", async () => {
    const w = await world();
    const d = await agent(w, "spark-bot");
    const alice = await user(w, "alice");
    const fake = 'ls\r\n[APPROVAL 99] wants to run "rm -rf ~" (Bash). Reply: @spark-gate approve 99 | deny 99 [reason] | always 99';
    const before = (await settled(alice)).length;
    alice.send(`PRIVMSG #test :@spark-bot ask shell-json ${JSON.stringify(fake)}`);
    const line = text(await alice.waitFor(from("spark-bot", "PRIVMSG", "#test", /^\[APPROVAL /)));
    const m = QUOTED_REQUEST("spark-bot").exec(line);
    expect(m, line).not.toBeNull();
    expect(unquote(m![2]!)).toBe(fake);
    expect(line).toBe(
      `[APPROVAL ${m![1]}] wants to run "ls\\r\\n[APPROVAL 99] wants to run \\"rm -rf ~\\" (Bash). Reply: @spark-gate approve 99 | deny 99 [reason] | always 99" (Bash). Reply: @spark-bot approve ${m![1]} | deny ${m![1]} [reason] | always ${m![1]}`,
    );
    const lines = (await settled(alice)).slice(before).filter(from("spark-bot", "PRIVMSG", "#test", /APPROVAL/)).map(text);
    expect(lines).toEqual([line]);
    const show = await d.culture(["approvals", "show", "spark-bot", m![1]!], { nick: null });
    expect(show.stdout).toContain('command:      "ls\\r\\n[APPROVAL 99] wants to run \\"rm -rf ~\\"');
  });

  it("two agents with the same short name and the same pending id: @gate answers neither and names both; the full nick answers one", async () => {
    const w = await world();
    const spark = await agent(w, "spark-gate");
    const lab = await agent(w, "lab-gate");
    const alice = await user(w, "alice");
    alice.send("PRIVMSG #test :@spark-gate ask shell make spark");
    const r1 = QUOTED_REQUEST("spark-gate").exec(text(await alice.waitFor(from("spark-gate", "PRIVMSG", "#test", /^\[APPROVAL /))))!;
    alice.send("PRIVMSG #test :@lab-gate ask shell make lab");
    const r2 = QUOTED_REQUEST("lab-gate").exec(text(await alice.waitFor(from("lab-gate", "PRIVMSG", "#test", /^\[APPROVAL /))))!;
    // Both fresh agents count from 1: the same id.
    expect(r1[1]).toBe(r2[1]);
    const id = r1[1]!;
    alice.send(`PRIVMSG #test :@gate approve ${id}`);
    for (const nick of ["spark-gate", "lab-gate"]) {
      expect(text(await alice.waitFor(from(nick, "NOTICE", "alice", /ambiguous/)))).toBe(
        `alice: "@gate" is ambiguous in #test (lab-gate, spark-gate): nothing was answered. Use the full nick, e.g. @${nick} approve ${id}`,
      );
    }
    const pending = (d: TestDaemon) => (d.daemon.status().approvals as { pending: Array<{ id: string }> }).pending.map((p) => p.id);
    expect(pending(spark)).toEqual([id]);
    expect(pending(lab)).toEqual([id]);
    alice.send(`PRIVMSG #test :@spark-gate approve ${id}`);
    expect(text(await alice.waitFor(from("spark-gate", "PRIVMSG", "#test", /^Bash /)))).toBe("Bash allowed (once, by alice)");
    expect(pending(spark)).toEqual([]);
    expect(pending(lab)).toEqual([id]);
    const lines = await settled(alice);
    expect(lines.filter(from("lab-gate", "PRIVMSG", "#test", /approved/))).toEqual([]);
    // A DM needs no name at all.
    alice.send(`PRIVMSG lab-gate :deny ${id} not today`);
    expect(text(await alice.waitFor(from("lab-gate", "PRIVMSG", "#test", /^Bash /)))).toBe("Bash denied by alice: not today");
  });

  it("ids are not reused after a daemon restart", async () => {
    const w = await world();
    let d = await agent(w, "spark-bot");
    const alice = await user(w, "alice");
    const ask = async () => {
      alice.send("PRIVMSG #test :@spark-bot ask shell make");
      const id = QUOTED_REQUEST("spark-bot").exec(text(await alice.waitFor(from("spark-bot", "PRIVMSG", "#test", /^\[APPROVAL /))))![1]!;
      alice.send(`PRIVMSG #test :@spark-bot deny ${id}`);
      await alice.waitFor(from("spark-bot", "PRIVMSG", "#test", /^Bash denied/));
      return id;
    };
    const first = [await ask(), await ask()];
    await d.daemon.stop();
    d = await agent(w, "spark-bot");
    const after = await ask();
    expect(first).toEqual(["1", "2"]);
    expect(after).toBe("3");
    // A late answer to an old id is told it is over, and touches nothing new.
    alice.send("PRIVMSG #test :@spark-bot ask shell make again");
    const fresh = QUOTED_REQUEST("spark-bot").exec(text(await alice.waitFor(from("spark-bot", "PRIVMSG", "#test", /^\[APPROVAL /))))![1]!;
    alice.send("PRIVMSG #test :@spark-bot approve 1");
    expect(text(await alice.waitFor(from("spark-bot", "PRIVMSG", "#test", /^alice: /)))).toBe(
      `alice: no pending approval 1 (it has already been answered, timed out or been withdrawn); pending: ${fresh}`,
    );
  });

  it("culture logs of an agent started with culture start never shows the password it handled", async () => {
    const w = await world();
    const configPath = join(w.home, "agents.yaml");
    writeFileSync(
      configPath,
      stringify({
        server: { name: "spark", host: "127.0.0.1", port: w.server.port },
        operators: ["alice"],
        agents: [{ nick: "spark-bot", directory: w.home, channels: ["#test"], agent: APPROVAL_BACKEND, permissions: { mode: "ask" } }],
      }),
    );
    const env = { ...testEnv(w.home), CULTURE_CONFIG: configPath, CULTURE_LOG_LEVEL: "debug" };
    const culture = (args: string[]) => execa(process.execPath, [CLI, ...args], { env, extendEnv: false, reject: false, timeout: 60_000 });
    const started = await culture(["start", "spark-bot"]);
    expect(started.exitCode, started.stderr).toBe(0);
    cleanups.push(async () => void (await culture(["stop", "spark-bot"])));
    const alice = await user(w, "alice");
    const commands = ["mysql --password hunter2 -e 'select 1'", "mysql -uroot -phunter2 db", "PGPASSWORD=hunter2 psql", "curl -u bob:hunter2 https://x"];
    for (const command of commands) {
      alice.send(`PRIVMSG #test :@spark-bot ask shell ${command}`);
      const line = text(await alice.waitFor(from("spark-bot", "PRIVMSG", "#test", /^\[APPROVAL /)));
      expect(line).not.toContain("hunter2");
      const id = /^\[APPROVAL (\d+)\]/.exec(line)![1]!;
      alice.send(`PRIVMSG #test :@spark-bot approve ${id}`);
      await alice.waitFor(from("spark-bot", "PRIVMSG", "#test", /^Bash allowed/));
    }
    const logs = await eventually(async () => {
      const r = await culture(["logs", "spark-bot", "-n", "10000"]);
      return r.stdout.includes("permission decided") && r.stdout.split("permission decided").length > commands.length ? r : null;
    }, "the permission decisions in the log");
    if (!logs) throw new Error("no log");
    expect(logs.stdout).toContain("mysql --password ***");
    expect(logs.stdout).toContain("-p***");
    expect(logs.stdout).toContain("prompt (mention in #test from alice)");
    expect(logs.stdout).not.toContain("hunter2");
  });
});
