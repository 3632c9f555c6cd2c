// draft/chathistory: every subcommand and error, replay after a reconnect, and history that
// survives a server restart (graceful close, and a SIGKILLed culture-ircd process).
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import IRC from "irc-framework";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startServer, type IrcServer } from "../src/index.js";
import { RawClient, tagsOf, withoutTags } from "./helpers/raw-client.js";

const CAPS = ["batch", "server-time", "message-tags", "draft/chathistory"];
const P = (nick: string): string => `${nick}!~${nick}@127.0.0.1`;
const open: RawClient[] = [];
const dirs: string[] = [];
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), "culture-ircd-state-"));
  dirs.push(d);
  return d;
};
const user = async (port: number, nick: string, caps = CAPS): Promise<RawClient> => {
  const c = await RawClient.register(port, nick, { caps });
  open.push(c);
  return c;
};

/** Posts `texts` to `channel` from `sender` and returns their msgids as `reader` saw them. */
async function post(sender: RawClient, reader: RawClient, channel: string, texts: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const t of texts) {
    sender.send(`PRIVMSG ${channel} :${t}`);
    const line = await reader.waitFor((l) => l.endsWith(` PRIVMSG ${channel} :${t}`));
    ids.push(tagsOf(line).get("msgid")!);
  }
  return ids;
}

/** Runs a CHATHISTORY command and returns the batch: its opening line, the messages, the closing line. */
async function history(c: RawClient, command: string): Promise<{ open: string; messages: string[]; close: string }> {
  c.send(command);
  const lines = await c.collectUntil(/ BATCH -/);
  const openLine = lines.find((l) => / BATCH \+/.test(l))!;
  const ref = /BATCH \+(\S+)/.exec(openLine)![1]!;
  const messages = lines.filter((l) => tagsOf(l).get("batch") === ref);
  return { open: openLine, messages, close: lines.at(-1)! };
}
const texts = (lines: string[]): string[] => lines.map((l) => withoutTags(l).split(" :").slice(1).join(" :"));

afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("CHATHISTORY queries", () => {
  let server: IrcServer;
  let ids: string[];
  let reader: RawClient;
  beforeAll(async () => {
    server = await startServer({ port: 0, stateDir: null });
  });
  afterAll(async () => {
    await server.close();
  });

  it("serves LATEST, BEFORE, AFTER, AROUND and BETWEEN in a chathistory batch", async () => {
    const sender = await user(server.port, "historian", ["message-tags"]);
    reader = await user(server.port, "reader");
    for (const c of [sender, reader]) {
      c.send("JOIN #hist");
      await c.waitFor(/ 366 /);
    }
    ids = await post(sender, reader, "#hist", Array.from({ length: 10 }, (_, i) => `m${i}`));

    const latest = await history(reader, "CHATHISTORY LATEST #hist * 3");
    expect(latest.open).toMatch(/^:culture\.local BATCH \+\S+ chathistory #hist$/);
    expect(latest.close).toMatch(/^:culture\.local BATCH -\S+$/);
    expect(texts(latest.messages)).toEqual(["m7", "m8", "m9"]);
    const first = latest.messages[0]!;
    expect(withoutTags(first)).toBe(`:${P("historian")} PRIVMSG #hist :m7`);
    expect(tagsOf(first).get("msgid")).toBe(ids[7]);
    expect(tagsOf(first).get("time")).toMatch(/^\d{4}-\d\d-\d\dT/);

    expect(texts((await history(reader, `CHATHISTORY LATEST #hist msgid=${ids[6]} 10`)).messages)).toEqual(["m7", "m8", "m9"]);
    expect(texts((await history(reader, `CHATHISTORY BEFORE #hist msgid=${ids[5]} 2`)).messages)).toEqual(["m3", "m4"]);
    expect(texts((await history(reader, `CHATHISTORY AFTER #hist msgid=${ids[5]} 2`)).messages)).toEqual(["m6", "m7"]);
    expect(texts((await history(reader, `CHATHISTORY AROUND #hist msgid=${ids[5]} 3`)).messages)).toEqual(["m4", "m5", "m6"]);
    expect(texts((await history(reader, `CHATHISTORY BETWEEN #hist msgid=${ids[1]} msgid=${ids[5]} 10`)).messages)).toEqual(["m2", "m3", "m4"]);
    expect(texts((await history(reader, `CHATHISTORY BETWEEN #HIST msgid=${ids[8]} msgid=${ids[1]} 2`)).messages)).toEqual(["m6", "m7"]);
    const far = "timestamp=2000-01-01T00:00:00.000Z";
    expect(texts((await history(reader, `CHATHISTORY AFTER #hist ${far} 2`)).messages)).toEqual(["m0", "m1"]);
    expect(texts((await history(reader, `CHATHISTORY BEFORE #hist ${far} 2`)).messages)).toEqual([]);
  });

  it("lists TARGETS with activity between two times", async () => {
    const c = await user(server.port, "targeter");
    c.send("JOIN #hist");
    await c.waitFor(/ 366 /);
    c.send("CHATHISTORY TARGETS timestamp=2000-01-01T00:00:00.000Z timestamp=2999-01-01T00:00:00.000Z 10");
    const lines = await c.collectUntil(/ BATCH -/);
    expect(lines[0]).toMatch(/^:culture\.local BATCH \+\S+ draft\/chathistory-targets$/);
    expect(withoutTags(lines[1]!)).toMatch(/^:culture\.local CHATHISTORY TARGETS #hist \d{4}-\d\d-\d\dT\S+Z$/);
    expect(lines).toHaveLength(3);
  });

  it("sends plain lines without batch to a client without the batch cap", async () => {
    const c = await user(server.port, "nobatch", []);
    c.send("JOIN #hist");
    await c.waitFor(/ 366 /);
    c.send("CHATHISTORY LATEST #hist * 2");
    expect(await c.next()).toBe(`:${P("historian")} PRIVMSG #hist :m8`);
    expect(await c.next()).toBe(`:${P("historian")} PRIVMSG #hist :m9`);
    expect(await c.sync()).toEqual([]);
  });

  it("answers FAIL for bad requests and for channels the client is not in", async () => {
    const c = await user(server.port, "failer");
    c.send("CHATHISTORY LATEST #hist * 5");
    expect(await c.next()).toBe(":culture.local FAIL CHATHISTORY INVALID_TARGET LATEST #hist :Messages could not be retrieved");
    c.send("CHATHISTORY LATEST reader * 5");
    expect(await c.next()).toBe(":culture.local FAIL CHATHISTORY INVALID_TARGET LATEST reader :Messages could not be retrieved");
    c.send("JOIN #hist");
    await c.waitFor(/ 366 /);
    c.send("CHATHISTORY BEFORE #hist * 5");
    expect(await c.next()).toBe(":culture.local FAIL CHATHISTORY INVALID_PARAMS BEFORE * :Invalid message reference");
    c.send("CHATHISTORY LATEST #hist * lots");
    expect(await c.next()).toBe(":culture.local FAIL CHATHISTORY INVALID_PARAMS LATEST lots :Invalid limit");
    c.send("CHATHISTORY LATEST #hist");
    expect(await c.next()).toBe(":culture.local FAIL CHATHISTORY NEED_MORE_PARAMS LATEST :Insufficient parameters");
    c.send("CHATHISTORY SIDEWAYS #hist * 5");
    expect(await c.next()).toBe(":culture.local FAIL CHATHISTORY INVALID_PARAMS SIDEWAYS :Unknown subcommand");
  });

  it("replays what was said while a client was away, after it reconnects and rejoins", async () => {
    const talker = await user(server.port, "talker");
    const leaver = await user(server.port, "leaver");
    for (const c of [talker, leaver]) {
      c.send("JOIN #away");
      await c.waitFor(/ 366 /);
    }
    await post(talker, leaver, "#away", ["before you left"]);
    await leaver.close();
    talker.send("PRIVMSG #away :while you were out");
    talker.send("NOTICE #away :and a notice");
    await talker.sync();
    const back = await user(server.port, "leaver");
    back.send("JOIN #away");
    await back.waitFor(/ 366 /);
    const got = await history(back, "CHATHISTORY LATEST #away * 10");
    expect(got.messages.map(withoutTags)).toEqual([
      `:${P("talker")} PRIVMSG #away :before you left`,
      `:${P("talker")} PRIVMSG #away :while you were out`,
      `:${P("talker")} NOTICE #away :and a notice`,
    ]);
  });

  it("works from irc-framework: a chathistory batch event with our messages", async () => {
    const client = new IRC.Client();
    client.requestCap(["draft/chathistory"]);
    const registered = new Promise<void>((resolve) => client.once("registered", () => resolve()));
    client.connect({ host: "127.0.0.1", port: server.port, nick: "fwhist", username: "fw", gecos: "fw", auto_reconnect: false });
    await registered;
    const joined = new Promise<void>((resolve) => client.once("join", () => resolve()));
    client.join("#hist");
    await joined;
    const batch = new Promise<Parameters<IRC.ClientEvents["batch end chathistory"]>[0]>((resolve) => client.once("batch end chathistory", resolve));
    client.raw("CHATHISTORY LATEST #hist * 2");
    const event = await batch;
    expect(event.params).toEqual(["#hist"]);
    expect(event.commands.map((c) => c.params)).toEqual([["#hist", "m8"], ["#hist", "m9"]]);
    expect(event.commands[1]!.tags.msgid).toBe(ids[9]);
    const closed = new Promise<void>((resolve) => client.once("socket close", () => resolve()));
    client.quit("bye");
    await closed;
  });
});

// Starts and SIGKILLs culture-ircd processes: room for a loaded 2-core machine.
describe("persistence", { timeout: 30_000 }, () => {
  it("keeps history across a graceful restart (state dir)", async () => {
    const stateDir = tempDir();
    const first = await startServer({ port: 0, stateDir });
    const a = await user(first.port, "keeper");
    a.send("JOIN #kept");
    await a.waitFor(/ 366 /);
    a.send("@+draft/reply=x PRIVMSG #kept :remember me");
    a.send("PRIVMSG #kept :and me, ünïcödé");
    await a.sync();
    const before = await history(a, "CHATHISTORY LATEST #kept * 10");
    await first.close();
    expect(readdirSync(join(stateDir, "history"))).toEqual(["%23kept.jsonl"]);

    const second = await startServer({ port: 0, stateDir });
    try {
      const b = await user(second.port, "returner");
      b.send("JOIN #KEPT");
      await b.waitFor(/ 366 /);
      const after = await history(b, "CHATHISTORY LATEST #kept * 10");
      expect(after.messages.map(withoutTags)).toEqual([
        `:${P("keeper")} PRIVMSG #kept :remember me`,
        `:${P("keeper")} PRIVMSG #kept :and me, ünïcödé`,
      ]);
      const tags = (lines: string[]) => lines.map((l) => [tagsOf(l).get("msgid"), tagsOf(l).get("time"), tagsOf(l).get("+draft/reply")]);
      expect(tags(after.messages)).toEqual(tags(before.messages));
    } finally {
      await second.close();
    }
  });

  it("writes behind while running, atomically, so a SIGKILLed server still has it", async () => {
    const stateDir = tempDir();
    const main = fileURLToPath(new URL("../dist/main.js", import.meta.url));
    expect(existsSync(main), "build first: npm run build").toBe(true);
    const run = async (): Promise<{ port: number; kill: () => Promise<void> }> => {
      const child = spawn(process.execPath, [main, "--port", "0", "--state-dir", stateDir, "--open"], { stdio: ["ignore", "pipe", "pipe"] });
      const port = await new Promise<number>((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (d: Buffer) => {
          out += d.toString();
          const m = /listening on 127\.0\.0\.1:(\d+)/.exec(out);
          if (m) resolve(Number(m[1]));
        });
        child.once("exit", (code) => reject(new Error(`culture-ircd exited with ${code}`)));
      });
      return {
        port,
        kill: () => new Promise<void>((resolve) => {
          child.once("exit", () => resolve());
          child.kill("SIGKILL");
        }),
      };
    };
    const first = await run();
    const a = await user(first.port, "survivor", []);
    a.send("JOIN #durable");
    await a.waitFor(/ 366 /);
    a.send("PRIVMSG #durable :written behind");
    await a.sync();
    const file = join(stateDir, "history", "%23durable.jsonl");
    // Write-behind: the file appears on its own within the flush delay (no shutdown needed).
    for (let i = 0; i < 200 && !(existsSync(file) && readFileSync(file, "utf8").includes("written behind")); i++) {
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(readFileSync(file, "utf8")).toContain("written behind");
    await first.kill();
    expect(readdirSync(join(stateDir, "history")).filter((f) => f.endsWith(".tmp"))).toEqual([]);

    const second = await run();
    try {
      const b = await user(second.port, "finder");
      b.send("JOIN #durable");
      await b.waitFor(/ 366 /);
      const got = await history(b, "CHATHISTORY LATEST #durable * 10");
      expect(got.messages.map(withoutTags)).toEqual([`:${P("survivor")} PRIVMSG #durable :written behind`]);
    } finally {
      await Promise.all(open.splice(0).map((c) => c.close()));
      await second.kill();
    }
  });

  it("skips unreadable lines in a damaged history file", async () => {
    const stateDir = tempDir();
    const first = await startServer({ port: 0, stateDir });
    const a = await user(first.port, "writer", []);
    a.send("JOIN #damaged");
    await a.waitFor(/ 366 /);
    a.send("PRIVMSG #damaged :good line");
    await a.sync();
    await first.close();
    const file = join(stateDir, "history", "%23damaged.jsonl");
    const { appendFileSync } = await import("node:fs");
    appendFileSync(file, "{not json\n\u0000\u0001garbage\n");
    const warnings: string[] = [];
    const second = await startServer({
      port: 0, stateDir, logger: { debug() {}, info() {}, warn: (m) => warnings.push(m), error() {} },
    });
    try {
      expect(warnings).toContain("skipped unreadable history lines");
      const b = await user(second.port, "checker");
      b.send("JOIN #damaged");
      await b.waitFor(/ 366 /);
      expect(texts((await history(b, "CHATHISTORY LATEST #damaged * 10")).messages)).toEqual(["good line"]);
    } finally {
      await second.close();
    }
  });
});
