/**
 * The daemon's two sockets and culture's IRC tools as a side door, end to end: a real daemon
 * on the embedded IRC server, the echo backend's real agent process (its `exec` runs a shell
 * command with the agent's own environment, as an agent's Bash tool does), humans as raw IRC
 * clients, raw IPC clients, and the real `culture` CLI — run as the owner (no CULTURE_NICK) or
 * from the agent's environment (CULTURE_NICK set, the same OS user).
 */
import { readFileSync, statSync } from "node:fs";
import { startServer, type IrcServer } from "@culture/server";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { IpcClient } from "../src/ipc/ipc-client.js";
import { controlSocketPath, controlTokenPath, socketPath } from "../src/paths.js";
import { connectRawClient, parseRawLine, type RawIrcClient } from "../src/testing/irc-servers.js";
import { CLI, eventually, startTestDaemon, type TestDaemon } from "./helpers/daemon-harness.js";

const NICK = "spark-bot";
const SECRET = "the-launch-code-is-4242";
const APPROVAL = /^\[APPROVAL ([^\]\s]+)\] wants to /;
const CONTROL_TYPES = ["approvals", "approval_answer", "approval_revoke", "approval_show", "pause", "resume", "shutdown"];

let server: IrcServer;
const cleanups: Array<() => Promise<void> | void> = [];
beforeAll(async () => {
  server = await startServer({ host: "127.0.0.1", port: 0, stateDir: null });
});
afterAll(async () => {
  await server?.close();
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await Promise.resolve(c()).catch(() => undefined);
});

async function daemon(permissions: Record<string, unknown> = { mode: "ask" }, channels = ["#general"]): Promise<TestDaemon> {
  const d = await startTestDaemon({ port: server.port, nick: NICK, channels, agent: { permissions, relay: "auto" } });
  cleanups.push(() => d.stop());
  return d;
}

async function human(nick: string, channels: string[] = ["#general"]): Promise<RawIrcClient> {
  const c = await connectRawClient(server.port, nick);
  cleanups.push(() => c.close());
  for (const ch of channels) await c.join(ch);
  return c;
}

async function tools(d: TestDaemon): Promise<IpcClient> {
  const c = await IpcClient.connect(socketPath(NICK, d.env));
  cleanups.push(() => c.close());
  return c;
}

const privmsg = (from: string, target: string, text: RegExp) => (line: string) => {
  const p = parseRawLine(line);
  return p.command === "PRIVMSG" && p.nick === from && p.params[0]?.toLowerCase() === target.toLowerCase() && text.test(p.params[1] ?? "");
};
const text = (line: string) => parseRawLine(line).params[1] ?? "";

/** Every line `c` has received once the server has answered a PING sent now. */
async function settled(c: RawIrcClient): Promise<string[]> {
  const token = `s${Math.random().toString(36).slice(2)}`;
  c.send(`PING :${token}`);
  await c.waitFor(new RegExp(`PONG .*${token}`));
  return c.lines;
}

/** The agent's next request line in `target`: its id and text. */
async function approval(c: RawIrcClient, target = "#general"): Promise<{ id: string; line: string }> {
  const line = text(await c.waitFor(privmsg(NICK, target, APPROVAL)));
  return { id: APPROVAL.exec(line)![1]!, line };
}

/** The agent (echo backend) runs `culture <args>` through its shell, in its own environment. */
function agentRuns(args: string): string {
  return `@${NICK} exec node ${CLI} ${args}`;
}

describe("the tools socket and the control socket", { timeout: 60_000 }, () => {
  it("the tools socket refuses every control command, naming what to run instead; the control socket needs the token", async () => {
    const d = await daemon({ mode: "bypass" });
    const t = await tools(d);
    for (const type of CONTROL_TYPES) {
      const res = await t.request(type, { approval: "00", answer: "approve", pattern: "Bash" });
      expect(res.ok, type).toBe(false);
      expect(res.error, type).toMatch(/is an owner's control command, and this is agent spark-bot's tools socket/);
      expect(res.error, type).toMatch(/from your own shell/);
    }
    expect((await t.request("pause")).error).toMatch(/Run culture pause spark-bot from your own shell/);
    expect((await t.request("shutdown")).error).toMatch(/Run culture stop spark-bot from your own shell/);
    expect((await t.request("approval_answer")).error).toMatch(/Run culture approvals from your own shell/);
    expect(d.daemon.status()).toMatchObject({ paused: false, running: true });
    // The agent's tools still work there.
    expect((await t.request("status")).ok).toBe(true);
    expect((await t.request("irc_channels")).ok).toBe(true);

    // The control socket: in the state folder, 0600, with a 0600 token file; no token, no answer.
    const ctl = controlSocketPath(NICK, d.env);
    expect(statSync(ctl).mode & 0o777).toBe(0o600);
    expect(statSync(controlTokenPath(NICK, d.env)).mode & 0o777).toBe(0o600);
    const token = readFileSync(controlTokenPath(NICK, d.env), "utf8").trim();
    const c = await IpcClient.connect(ctl);
    cleanups.push(() => c.close());
    for (const bad of [undefined, "", "0".repeat(64), `${token}x`, token.toUpperCase()]) {
      const res = await c.request("pause", bad === undefined ? {} : { token: bad });
      expect(res.ok).toBe(false);
      expect(res.error).toMatch(/needs the daemon's control token/);
    }
    expect(d.daemon.status().paused).toBe(false);
    expect((await c.request("pause", { token })).ok).toBe(true);
    expect(d.daemon.status().paused).toBe(true);
    expect((await c.request("resume", { token })).ok).toBe(true);
    // The agent's IRC tools are not answered on the control socket (status is).
    expect((await c.request("irc_send", { token, channel: "#general", message: "x" })).error).toMatch(/one of the agent's IRC tools/);
    expect((await c.request("status", { token })).ok).toBe(true);

    // The token is nowhere in the agent's environment (grep -c counts 0 lines and exits 1).
    const alice = await human("alice");
    alice.send(`PRIVMSG #general :@${NICK} exec env | grep -c ${token}`);
    expect(text(await alice.waitFor(privmsg(NICK, "#general", /^exit /)))).toBe("exit 1: 0");
    alice.send(`PRIVMSG #general :@${NICK} exec env | grep -c ^CULTURE_NICK=${NICK}$`);
    expect(text(await alice.waitFor(privmsg(NICK, "#general", /^\d+$/)))).toBe("1");
  });

  it("culture pause and resume go through the control socket; from the agent's environment pause, resume and stop are refused", async () => {
    const d = await daemon({ mode: "bypass" });
    const paused = await d.culture(["pause", NICK], { nick: null });
    expect(paused.stdout).toBe(`Paused ${NICK}`);
    expect(d.daemon.status().paused).toBe(true);
    const resumed = await d.culture(["resume", NICK], { nick: null });
    expect(resumed.stdout).toBe(`Resumed ${NICK}`);
    expect(d.daemon.status().paused).toBe(false);
    // From the agent's environment: refused before anything is sent.
    for (const verb of ["pause", "resume", "stop"]) {
      const r = await d.culture([verb, NICK]);
      expect(r.exitCode, verb).toBe(1);
      expect(r.stderr, verb).toMatch(new RegExp(`^culture ${verb}: refused in an agent's environment \\(CULTURE_NICK=${NICK} is set\\)`));
      expect(r.stderr, verb).toMatch(new RegExp(`Run culture ${verb} from your own shell`));
    }
    // Nor may it speak as the owner's operator identity.
    const send = await d.culture(["send", "#general", "@spark-bot", "approve", "00"]);
    expect(send.exitCode).toBe(1);
    expect(send.stderr).toMatch(/^culture send: refused in an agent's environment/);
    expect(d.daemon.status()).toMatchObject({ paused: false, running: true });
  });

  it("from the agent's environment culture approvals is refused (and the raw socket too); the owner's culture approvals works", async () => {
    const d = await daemon({ mode: "ask" });
    const alice = await human("alice");
    const mallory = await human("mallory", []);
    // A pending request: the agent's own send to a stranger, with no task running.
    const t = await tools(d);
    const pending = t.request("irc_send", { channel: "mallory", message: SECRET }, { timeoutMs: 0 });
    const { id } = await approval(alice);

    // The agent tries to approve it itself: with the CLI from its environment, and with raw IPC.
    const fromAgent = await d.culture(["approvals", "approve", NICK, id]);
    expect(fromAgent.exitCode).toBe(1);
    expect(fromAgent.stderr).toMatch(/^culture approvals: refused in an agent's environment \(CULTURE_NICK=spark-bot is set\)/);
    expect(fromAgent.stderr).toMatch(/Run culture approvals from your own shell/);
    for (const args of [["approvals", "list"], ["approvals", "always", NICK, id], ["approvals", "rules", NICK]]) {
      expect((await d.culture(args)).exitCode, args.join(" ")).toBe(1);
    }
    const raw = await (await tools(d)).request("approval_answer", { approval: id, answer: "approve" });
    expect(raw.ok).toBe(false);
    expect(raw.error).toMatch(/Run culture approvals from your own shell/);
    // ... and through its real shell, as its Bash tool would.
    alice.send(`PRIVMSG #general :${agentRuns(`approvals approve ${NICK} ${id}`)}`);
    expect(text(await alice.waitFor(privmsg(NICK, "#general", /^exit 1: /)))).toMatch(/refused in an agent's environment/);
    expect(d.daemon.status().approvals).toMatchObject({ pending: [expect.objectContaining({ id })] });
    expect((await settled(mallory)).some((l) => l.includes(SECRET))).toBe(false);

    // The owner's CLI lists and approves it: only now does mallory get the message.
    const list = await d.culture(["approvals", "list", "--json"], { nick: null });
    expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining({ nick: NICK, id, tool: "IrcSend" })]);
    const approved = await d.culture(["approvals", "approve", NICK, id], { nick: null });
    expect(approved.exitCode).toBe(0);
    expect(approved.stdout).toBe(`Approved ${id} for ${NICK}`);
    expect((await pending).ok).toBe(true);
    expect(text(await mallory.waitFor(privmsg(NICK, "mallory", /./)))).toBe(SECRET);
  });
});

describe("culture's IRC tools sending elsewhere than the task's origin", { timeout: 60_000 }, () => {
  it("mode ask, a task from #general: a DM to mallory waits for an approval in #general and is sent once approved", async () => {
    const d = await daemon({ mode: "ask" });
    const alice = await human("alice");
    const mallory = await human("mallory", []);
    alice.send(`PRIVMSG #general :${agentRuns(`channel send mallory '${SECRET}'`)}`);
    const { id, line } = await approval(alice);
    expect(line).toContain(`send to mallory: ${SECRET}`);
    expect(line).toContain("(IrcSend)");
    expect((await settled(mallory)).some((l) => l.includes(SECRET))).toBe(false);
    const approved = await d.culture(["approvals", "approve", NICK, id], { nick: null });
    expect(approved.exitCode).toBe(0);
    expect(text(await mallory.waitFor(privmsg(NICK, "mallory", /./)))).toBe(SECRET);
  });

  it("mode ask: after a deny mallory receives nothing at all, and the agent is told why", async () => {
    const d = await daemon({ mode: "ask" });
    const alice = await human("alice");
    const mallory = await human("mallory", []);
    alice.send(`PRIVMSG #general :${agentRuns(`channel send mallory '${SECRET}'`)}`);
    const { id } = await approval(alice);
    const denied = await d.culture(["approvals", "deny", NICK, id, "not", "to", "strangers"], { nick: null });
    expect(denied.exitCode).toBe(0);
    // The agent's command failed with the reason (relayed to the origin as the turn's text).
    const out = text(await alice.waitFor(privmsg(NICK, "#general", /^exit 1: /)));
    expect(out).toMatch(/nothing was sent to mallory: not to strangers\. Sending anywhere but where the current task came from \(#general\) follows the permissions policy as IrcSend\(mallory\)\./);
    await eventually(() => d.daemon.status().activity === "idle", "the turn to end");
    expect((await settled(mallory)).some((l) => parseRawLine(l).command === "PRIVMSG")).toBe(false);
  });

  it("sending to the origin is free: the task's channel, and the nick of a DM task", async () => {
    await daemon({ mode: "ask" });
    const alice = await human("alice");
    alice.send(`PRIVMSG #general :${agentRuns("channel send '#general' to-the-origin")}`);
    await alice.waitFor(privmsg(NICK, "#general", /^to-the-origin$/));
    // The same channel in other letters is the same target.
    alice.send(`PRIVMSG #general :${agentRuns("channel send '#GENERAL' upper-case-origin")}`);
    await alice.waitFor(privmsg(NICK, "#general", /^upper-case-origin$/));
    alice.send(`PRIVMSG ${NICK} :exec node ${CLI} channel send alice back-to-the-dm`);
    await alice.waitFor(privmsg(NICK, "alice", /^back-to-the-dm$/));
    expect((await settled(alice)).some((l) => APPROVAL.test(text(l)))).toBe(false);
  });

  it("targets that try to pass for the origin: other spellings ask or are refused; nothing reaches mallory", async () => {
    const d = await daemon({ mode: "ask" });
    const alice = await human("alice");
    const mallory = await human("mallory", []);
    alice.send(`PRIVMSG #general :@${NICK} hang`);
    await eventually(() => d.daemon.status().activity === "working", "the task from #general to start");
    const t = await tools(d);
    // Not valid targets at all: refused, nothing sent.
    for (const channel of ["#general,mallory", "#general\r\nPRIVMSG mallory :x", "#general mallory", ",mallory"]) {
      const res = await t.request("irc_send", { channel, message: SECRET });
      expect(res.ok, JSON.stringify(channel)).toBe(false);
      expect(res.error, JSON.stringify(channel)).not.toMatch(/^nothing was sent/);
    }
    // The origin with blanks or NUL around it is the origin (the server sees #general).
    expect((await t.request("irc_send", { channel: " #general\u0000 ", message: "still the origin" })).ok).toBe(true);
    await alice.waitFor(privmsg(NICK, "#general", /^still the origin$/));
    // Look-alikes of the origin are other targets: one that reaches someone asks ...
    const pending = t.request("irc_send", { channel: "mallory\u0000", message: SECRET }, { timeoutMs: 0 });
    const { id, line } = await approval(alice);
    expect(line).toContain("(IrcSend)");
    await d.culture(["approvals", "deny", NICK, id], { nick: null });
    expect((await pending).error).toMatch(/^nothing was sent to /);
    // ... and one that reaches nobody (a nick not online, a channel it is not in) is refused at once.
    for (const channel of ["@#general", "#general_"]) {
      const res = await t.request("irc_send", { channel, message: SECRET });
      expect(res.error, JSON.stringify(channel)).toMatch(/is not on IRC now|not in channel #general_/);
    }
    expect((await settled(mallory)).some((l) => l.includes(SECRET))).toBe(false);
  });

  it("a send the command would refuse anyway asks nobody: a channel it is not in, a nick not online", async () => {
    const d = await daemon({ mode: "ask" });
    const alice = await human("alice");
    const t = await tools(d);
    const mark = alice.lines.length;
    const channel = await t.request("irc_send", { channel: "#nowhere", message: SECRET });
    expect(channel.error).toMatch(/^not in channel #nowhere \(you are in: #general, #alerts\); join it first/);
    const nick = await t.request("irc_ask", { channel: "ghost", question: SECRET, timeout: 1 });
    expect(nick.error).toMatch(/^ghost is not on IRC now \(WHO found no one by that nick\); nothing was asked/);
    const topic = await t.request("irc_topic", { channel: "#nowhere", topic: SECRET });
    expect(topic.error).toMatch(/^not in channel #nowhere/);
    const part = await t.request("irc_part", { channel: "#nowhere", reason: SECRET });
    expect(part.error).toMatch(/^not in channel #nowhere/);
    // Nobody was asked: no request line, nothing pending.
    expect((await settled(alice)).slice(mark).some((l) => APPROVAL.test(text(l)))).toBe(false);
    expect((d.daemon.status().approvals as { pending: unknown[] }).pending).toEqual([]);
  });

  it("policy: IrcSend(#dev) allows #dev unasked, other targets still ask; deny patterns and allowlist refuse; bypass sends as before", async () => {
    const channels = ["#general", "#dev", "#ops"];
    let d = await daemon({ mode: "ask", allow: ["IrcSend(#dev)"] }, channels);
    const alice = await human("alice", channels);
    alice.send(`PRIVMSG #general :${agentRuns("channel send '#dev' allowed-by-pattern")}`);
    await alice.waitFor(privmsg(NICK, "#dev", /^allowed-by-pattern$/));
    alice.send(`PRIVMSG #general :${agentRuns("channel send '#ops' not-covered")}`);
    const { id } = await approval(alice);
    await d.culture(["approvals", "deny", NICK, id], { nick: null });
    await alice.waitFor(privmsg(NICK, "#general", /^exit 1: .*nothing was sent to #ops/));
    await d.stop();

    d = await daemon({ mode: "allowlist", allow: ["IrcSend(#dev)"] }, channels);
    alice.send(`PRIVMSG #general :${agentRuns("channel send '#ops' allowlist-refuses")}`);
    const refused = text(await alice.waitFor(privmsg(NICK, "#general", /^exit 1: /)));
    expect(refused).toMatch(/nothing was sent to #ops: .*allowlist/);
    await d.stop();

    d = await daemon({ mode: "bypass", deny: ["IrcSend(mallory)"] }, channels);
    await human("mallory", []);
    alice.send(`PRIVMSG #general :${agentRuns(`channel send mallory '${SECRET}'`)}`);
    expect(text(await alice.waitFor(privmsg(NICK, "#general", /^exit 1: /)))).toMatch(/nothing was sent to mallory: .*IrcSend\(mallory\)/);
    const mark = alice.lines.length;
    alice.send(`PRIVMSG #general :${agentRuns("channel send '#ops' bypass-sends")}`);
    await alice.waitFor(privmsg(NICK, "#ops", /^bypass-sends$/));
    expect((await settled(alice)).slice(mark).some((l) => APPROVAL.test(text(l)))).toBe(false);
  });

  it("irc_ask, a topic and a part reason elsewhere ask too; with no task running every target asks", async () => {
    const channels = ["#general", "#dev"];
    const d = await daemon({ mode: "ask" }, channels);
    const alice = await human("alice", channels);
    const t = await tools(d);
    // No task: even #general asks (the request line goes to the first channel).
    const ask = t.request("irc_ask", { channel: "#dev", question: "anyone there?", timeout: 1 }, { timeoutMs: 0 });
    const asked = await approval(alice);
    expect(asked.line).toContain("ask #dev: anyone there?");
    const askId = asked.id;
    await d.culture(["approvals", "deny", NICK, askId], { nick: null });
    expect((await ask).error).toMatch(/^nothing was sent to #dev: .*While no task is running, every send follows the permissions policy as IrcSend\(#dev\)\./);

    const topic = t.request("irc_topic", { channel: "#dev", topic: SECRET }, { timeoutMs: 0 });
    const topicAsked = await approval(alice);
    expect(topicAsked.line).toContain(`set the topic of #dev to: ${SECRET}`);
    const topicId = topicAsked.id;
    await d.culture(["approvals", "deny", NICK, topicId], { nick: null });
    expect((await topic).ok).toBe(false);

    const part = t.request("irc_part", { channel: "#dev", reason: SECRET }, { timeoutMs: 0 });
    const partAsked = await approval(alice);
    expect(partAsked.line).toContain(`leave #dev saying: ${SECRET}`);
    const partId = partAsked.id;
    await d.culture(["approvals", "deny", NICK, partId], { nick: null });
    expect((await part).ok).toBe(false);
    expect(d.daemon.status().channels).toContain("#dev");
    expect((await settled(alice)).some((l) => parseRawLine(l).params[0] === "#dev" && l.includes(SECRET))).toBe(false);
  });
});
