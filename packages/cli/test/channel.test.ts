/**
 * `culture channel` as the agent runs it: the built CLI as a subprocess, against a real
 * IpcServer on a real Unix socket with a small test handler standing in for the daemon.
 * Build first (`npm run build`).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
// The built core (the CLI under test needs a build anyway, and rootDir keeps core's source out).
import { IpcServer, silentLogger, type IpcRequest, type IpcResult } from "@culture/core";
import { socketPath } from "@culture/core/paths";

const MAIN = fileURLToPath(new URL("../dist/main.js", import.meta.url));
/** The `culture` executable agents run: the CommonJS fast path, which exits once its output is written. */
const BIN = fileURLToPath(new URL("../bin/culture.cjs", import.meta.url));
const NICK = "spark-tester";

let runtime: string;
let server: IpcServer;
let requests: IpcRequest[];
/** Per-type answers the test can override. */
let answers: Map<string, IpcResult>;

const DEFAULT_ANSWERS: Array<[string, IpcResult]> = [
  ["irc_send", { ok: true, data: { queued: false } }],
  [
    "irc_read",
    {
      ok: true,
      data: {
        messages: [
          { nick: "alice", text: "hello there", timestamp: 1_700_000_000 },
          { nick: "bob", text: "@spark-tester can you look?", timestamp: 1_700_000_061.5 },
        ],
        skipped: 3,
      },
    },
  ],
  ["irc_ask", { ok: true, data: { answer: { nick: "alice", text: "@spark-tester use main", timestamp: 1_700_000_120 } } }],
  ["irc_join", { ok: true, data: { channel: "#release" } }],
  ["irc_part", { ok: true, data: { channel: "#release" } }],
  ["irc_channels", { ok: true, data: { channels: [{ channel: "#general", members: 3 }, { channel: "#a", members: 1 }] } }],
  [
    "irc_who",
    {
      ok: true,
      data: {
        members: [
          { nick: "alice", modes: "+o", away: false },
          { nick: "spark-tester", modes: "", away: false },
          { nick: "bob", modes: "+v", away: true },
        ],
      },
    },
  ],
  ["irc_topic", { ok: true, data: { channel: "#general", topic: "release 2.0 planning", setBy: "alice" } }],
  ["compact", { ok: true, data: {} }],
  ["clear", { ok: true, data: {} }],
  [
    "status",
    {
      ok: true,
      data: {
        running: true,
        paused: false,
        activity: "idle",
        last_activation: null,
        channels: ["#general", "#a"],
        supervisor: { evaluator: null, ladder_step: 0 },
      },
    },
  ],
];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(args: string[], env: Record<string, string | undefined> = {}, entry = MAIN): Promise<Run> {
  const fullEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries({
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TZ: "UTC",
    XDG_RUNTIME_DIR: runtime,
    CULTURE_NICK: NICK,
    ...env,
  })) {
    if (v !== undefined) fullEnv[k] = v;
  }
  return new Promise((resolve) => {
    // Async on purpose: the IpcServer answering the CLI runs in this process.
    execFile(process.execPath, [entry, "channel", ...args], { env: fullEnv, timeout: 20_000, maxBuffer: 16 * 2 ** 20 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === "number" ? err.code : null) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  if (!existsSync(MAIN)) throw new Error(`build the CLI first (npm run build): ${MAIN} is missing`);
  runtime = mkdtempSync(join(tmpdir(), "cchan-"));
  server = new IpcServer({
    path: socketPath(NICK, { XDG_RUNTIME_DIR: runtime }),
    logger: silentLogger,
    handler: async (req) => {
      requests.push(req);
      return answers.get(req.type) ?? { ok: false, error: `Unknown message type: '${req.type}'` };
    },
  });
  await server.start();
});

afterAll(async () => {
  await server?.stop();
  rmSync(runtime, { recursive: true, force: true });
});

beforeEach(() => {
  requests = [];
  answers = new Map(DEFAULT_ANSWERS);
});

/** The fields of the one request a call made, without its id. */
function lastRequest(): Record<string, unknown> {
  expect(requests).toHaveLength(1);
  const { id, ...rest } = requests[0] as IpcRequest;
  expect(id).toMatch(/^[0-9a-f-]{36}$/);
  return rest;
}

describe("culture channel: commands", () => {
  it("send: irc_send {channel, message}, prints nothing", async () => {
    const r = await run(["send", "#general", "build", "is", "green"]);
    expect(r).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(lastRequest()).toEqual({ type: "irc_send", channel: "#general", message: "build is green" });
  });

  it("send: says when the message was queued for after a reconnect", async () => {
    answers.set("irc_send", { ok: true, data: { queued: true } });
    const r = await run(["send", "#general", "hi"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("queued (not connected; will be sent on reconnect)\n");
  });

  it("send: text after -- may look like options", async () => {
    const r = await run(["send", "#general", "--", "use", "--json", "-h"]);
    expect(r.code).toBe(0);
    expect(lastRequest()).toMatchObject({ message: "use --json -h" });
  });

  it("send: unknown dash-words inside the text are text", async () => {
    await run(["send", "#general", "it", "is", "-5", "degrees"]);
    expect(lastRequest()).toMatchObject({ message: "it is -5 degrees" });
  });

  it("read: irc_read {channel, limit: 50}, prints [HH:MM:SS] <nick> text and the dropped note", async () => {
    const r = await run(["read", "#general"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      "(3 older messages were dropped)\n[22:13:20] <alice> hello there\n[22:14:21] <bob> @spark-tester can you look?\n",
    );
    expect(lastRequest()).toEqual({ type: "irc_read", channel: "#general", limit: 50 });
  });

  it("read: a limit, millisecond timestamps, one dropped message", async () => {
    answers.set("irc_read", { ok: true, data: { messages: [{ nick: "carol", text: "ms", timestamp: 1_700_000_000_000 }], skipped: 1 } });
    const r = await run(["read", "#general", "10"]);
    expect(r.stdout).toBe("(1 older message was dropped)\n[22:13:20] <carol> ms\n");
    expect(lastRequest()).toMatchObject({ limit: 10 });
  });

  it("read: says when there is nothing new", async () => {
    answers.set("irc_read", { ok: true, data: { messages: [], skipped: 0 } });
    const r = await run(["read", "#quiet"]);
    expect(r).toEqual({ code: 0, stdout: "(no new messages in #quiet)\n", stderr: "" });
  });

  it("ask: irc_ask {channel, question, timeout: 300}, prints the answer", async () => {
    const r = await run(["ask", "#general", "which", "branch?"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("[22:15:20] <alice> @spark-tester use main\n");
    expect(lastRequest()).toEqual({ type: "irc_ask", channel: "#general", question: "which branch?", timeout: 300 });
  });

  it("ask: --timeout N (before or after the question), and a timed-out answer", async () => {
    answers.set("irc_ask", { ok: true, data: { answer: null, timed_out: true } });
    const r = await run(["ask", "#general", "--timeout", "5", "anyone?"]);
    expect(r).toEqual({ code: 0, stdout: "(no answer within 5s)\n", stderr: "" });
    expect(lastRequest()).toEqual({ type: "irc_ask", channel: "#general", question: "anyone?", timeout: 5 });
    requests = [];
    await run(["ask", "#general", "still", "there?", "--timeout=7"]);
    expect(lastRequest()).toMatchObject({ question: "still there?", timeout: 7 });
  });

  it("join and part", async () => {
    const j = await run(["join", "#release"]);
    expect(j).toEqual({ code: 0, stdout: "joined #release\n", stderr: "" });
    expect(lastRequest()).toEqual({ type: "irc_join", channel: "#release" });
    requests = [];
    const p = await run(["part", "#release"]);
    expect(p).toEqual({ code: 0, stdout: "left #release\n", stderr: "" });
    expect(lastRequest()).toEqual({ type: "irc_part", channel: "#release" });
  });

  it("channels: one line per channel with member counts", async () => {
    const r = await run(["channels"]);
    expect(r.stdout).toBe("#general  3 members\n#a        1 member\n");
    expect(lastRequest()).toEqual({ type: "irc_channels" });
    answers.set("irc_channels", { ok: true, data: { channels: [] } });
    expect((await run(["channels"])).stdout).toBe("(not in any channel)\n");
  });

  it("who: irc_who {channel: target}, nick + modes + away", async () => {
    const r = await run(["who", "#general"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("alice         +o\nspark-tester\nbob           +v  away\n");
    expect(lastRequest()).toEqual({ type: "irc_who", channel: "#general" });
  });

  it("topic: get, set, and none", async () => {
    const get = await run(["topic", "#general"]);
    expect(get.stdout).toBe("#general: release 2.0 planning (set by alice)\n");
    expect(lastRequest()).toEqual({ type: "irc_topic", channel: "#general" });
    requests = [];
    answers.set("irc_topic", { ok: true, data: { channel: "#general", topic: "freeze", setBy: NICK } });
    const set = await run(["topic", "#general", "freeze"]);
    expect(set.stdout).toBe(`#general: freeze (set by ${NICK})\n`);
    expect(lastRequest()).toEqual({ type: "irc_topic", channel: "#general", topic: "freeze" });
    answers.set("irc_topic", { ok: true, data: { topic: null, setBy: null } });
    expect((await run(["topic", "#empty"])).stdout).toBe("(no topic set for #empty)\n");
  });

  it("compact and clear", async () => {
    expect(await run(["compact"])).toEqual({ code: 0, stdout: "context compaction requested\n", stderr: "" });
    expect(lastRequest()).toEqual({ type: "compact" });
    requests = [];
    expect(await run(["clear"])).toEqual({ code: 0, stdout: "context clear requested\n", stderr: "" });
    expect(lastRequest()).toEqual({ type: "clear" });
  });

  it("status: key: value lines", async () => {
    const r = await run(["status"]);
    expect(r.stdout).toBe(
      "running: true\npaused: false\nactivity: idle\nlast_activation: -\nchannels: #general, #a\nsupervisor.evaluator: -\nsupervisor.ladder_step: 0\n",
    );
    expect(lastRequest()).toEqual({ type: "status" });
  });

  it("--json prints the raw response data, wherever it is given", async () => {
    const status = await run(["status", "--json"]);
    const dataOf = (type: string) => (DEFAULT_ANSWERS.find(([t]) => t === type)?.[1] as { data: unknown }).data;
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toEqual(dataOf("status"));
    expect(status.stdout).toMatch(/^\{\n {2}"running": true,/); // pretty-printed
    const read = await run(["--json", "read", "#general", "2"]);
    expect(JSON.parse(read.stdout)).toEqual(dataOf("irc_read"));
    const send = await run(["send", "--json", "#general", "x"]);
    expect(JSON.parse(send.stdout)).toEqual({ queued: false });
  });

  it("an ok:false answer is printed to stderr and exits 1", async () => {
    answers.set("irc_send", { ok: false, error: "not in channel #nope (join it first)" });
    const r = await run(["send", "#nope", "hi"]);
    expect(r).toEqual({ code: 1, stdout: "", stderr: "culture channel send: not in channel #nope (join it first)\n" });
  });
});

// The checks that turn silent no-ops into failures (a send to a nick that is not online, a read
// of a channel the agent is not in) are the daemon's now, defined once in the catalogue:
// irc-commands-parity.test.ts runs them through this CLI and through MCP against a real daemon.

describe("culture channel: whispers", () => {
  it("prints queued supervisor whispers to stderr on any call", async () => {
    server.sendWhisper({ action: "CORRECTION", message: "You've retried this 3 times. Ask #llama-cpp for help." });
    server.sendWhisper({ action: "THINK_DEEPER", message: "Step back and re-read the error." });
    const r = await run(["send", "#general", "trying again"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      "[SUPERVISOR/CORRECTION] You've retried this 3 times. Ask #llama-cpp for help.\n" +
        "[SUPERVISOR/THINK_DEEPER] Step back and re-read the error.\n",
    );
    const next = await run(["channels"]);
    expect(next.stderr).toBe(""); // delivered once
  });

  it("prints whispers even when the request fails", async () => {
    answers.set("irc_join", { ok: false, error: "cannot join #x: banned" });
    server.sendWhisper({ action: "CORRECTION", message: "stop joining #x" });
    const r = await run(["join", "#x"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("[SUPERVISOR/CORRECTION] stop joining #x\nculture channel join: cannot join #x: banned\n");
  });
});

describe("culture channel: the executable", () => {
  it("bin/culture.cjs prints a long answer and the whispers whole, with the exit status, as the ESM entry does", async () => {
    // Far more than a pipe holds (64 KiB): the fast path exits as soon as its writes are done,
    // so a write still in flight would be cut off here.
    const messages = Array.from({ length: 2000 }, (_, i) => ({ nick: `n${i % 7}`, text: `line ${i} ${"é".repeat(60)}`, timestamp: 1_700_000_000 + i }));
    answers.set("irc_read", { ok: true, data: { messages, skipped: 0 } });
    server.sendWhisper({ action: "CORRECTION", message: "read less at a time" });
    const viaBin = await run(["read", "#general", "2000"], {}, BIN);
    expect(viaBin.code).toBe(0);
    expect(viaBin.stdout.length).toBeGreaterThan(150_000);
    expect(viaBin.stdout.trimEnd().split("\n")).toHaveLength(2000);
    expect(viaBin.stdout).toMatch(/line 1999 é{60}\n$/);
    expect(viaBin.stderr).toBe("[SUPERVISOR/CORRECTION] read less at a time\n");
    server.sendWhisper({ action: "CORRECTION", message: "read less at a time" });
    expect(await run(["read", "#general", "2000"])).toEqual(viaBin);

    answers.set("irc_join", { ok: false, error: "cannot join #x: banned" });
    const refused = await run(["join", "#x"], {}, BIN);
    expect(refused).toEqual({ code: 1, stdout: "", stderr: "culture channel join: cannot join #x: banned\n" });
    expect(await run(["send", "#general", "hi"], {}, BIN)).toEqual({ code: 0, stdout: "", stderr: "" });
  });
});

describe("culture channel: errors", () => {
  it("missing CULTURE_NICK: exit 1 with a clear message", async () => {
    const r = await run(["send", "#general", "hi"], { CULTURE_NICK: undefined });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^culture channel: CULTURE_NICK is not set\./);
    expect(requests).toEqual([]);
  });

  it("malformed CULTURE_NICK: exit 1", async () => {
    const r = await run(["status"], { CULTURE_NICK: "../evil nick" });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/CULTURE_NICK="\.\.\/evil nick" is not a valid nick/);
  });

  it("daemon not running: exit 1 naming the socket path", async () => {
    const r = await run(["send", "#general", "hi"], { CULTURE_NICK: "spark-absent" });
    expect(r.code).toBe(1);
    const path = socketPath("spark-absent", { XDG_RUNTIME_DIR: runtime });
    expect(r.stderr).toBe(
      `agent spark-absent is not running (no daemon answers on ${path}).\n` +
        `CULTURE_NICK=spark-absent names the agent whose daemon to talk to: is it right? culture status lists the agents.\n` +
        `If it is, start it with: culture start spark-absent\n`,
    );
  });

  it("without XDG_RUNTIME_DIR and CULTURE_HOME the socket is under ~/.culture/run, through either entry", async () => {
    // The bundle loads os only for this (packages/cli/src/channel/lazy-os.ts).
    const env = { CULTURE_NICK: "spark-absent", XDG_RUNTIME_DIR: undefined, CULTURE_HOME: undefined, HOME: join(runtime, "home") };
    const path = join(runtime, "home", ".culture", "run", "culture-spark-absent.sock");
    for (const entry of [BIN, MAIN]) {
      const r = await run(["send", "#general", "hi"], env, entry);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`agent spark-absent is not running (no daemon answers on ${path}).\n`);
    }
  });

  it.each([
    [[], /missing command/],
    [["frobnicate"], /unknown command 'frobnicate'/],
    [["send"], /missing <channel\|nick> \(quote channel names/],
    [["send", "#general"], /missing <message>/],
    [["read", "#general", "ten"], /limit must be a whole number >= 1 \(got 'ten'\)/],
    [["read", "#general", "0"], /limit must be a whole number >= 1/],
    [["read", "#general", "5", "extra"], /unexpected argument: extra/],
    [["read", "#general", "--limit", "5"], /unknown option --limit/],
    [["ask", "#general", "--timeout"], /--timeout needs a number/],
    [["ask", "#general", "--timeout", "-1", "q"], /--timeout must be a whole number/],
    [["send", "--timeout", "5", "#general", "hi"], /unknown option --timeout \(only ask takes it\)/],
    [["join"], /missing <channel>/],
    [["channels", "#general"], /unexpected argument: #general/],
  ])("usage error %j exits 2", async (args, message) => {
    const r = await run(args as string[]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(message);
    expect(requests).toEqual([]);
  });

  it("--help lists every command; <cmd> --help explains one; neither needs CULTURE_NICK", async () => {
    const all = await run(["--help"], { CULTURE_NICK: undefined });
    expect(all.code).toBe(0);
    for (const cmd of ["send", "read", "ask", "join", "part", "channels", "who", "topic", "compact", "clear", "status"]) {
      expect(all.stdout).toContain(`  ${cmd}`);
    }
    const one = await run(["ask", "--help"], { CULTURE_NICK: undefined });
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(/^usage: culture channel ask <channel> \[--timeout N\] <question\.\.\.>/);
    expect(one.stdout).toContain("IPC request: irc_ask");
    expect(requests).toEqual([]);
  });
});
