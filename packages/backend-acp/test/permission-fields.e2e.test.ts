/**
 * Issue #24 with the fake ACP agent in a real daemon on a real IRC server: the policy decides
 * ACP requests on their structured fields (kind, rawInput, locations), never on the title or
 * call id the model can write; `always` pins the exact request; and `deny` holds in bypass
 * mode, the default. The fake agent's `request <json>` sends whatever toolCall a model could
 * make a real agent send.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startServer, type IrcServer } from "@culture/server";
import { connectRawClient, eventually, parseRawLine, startTestDaemon, type RawIrcClient, type TestDaemon } from "@culture/core/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

const FAKE = fileURLToPath(new URL("./fixtures/fake-acp-agent.mjs", import.meta.url));
const NICK = "spark-fields";
/** The approvals part of the daemon's status. */
const approvals = (d: TestDaemon) => (d.daemon.status() as unknown as { approvals: { mode: string; rules: number } }).approvals;

describe("ACP requests are decided on their fields (issue #24)", { timeout: 60_000 }, () => {
  let irc: IrcServer;
  const cleanups: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    irc = await startServer({ host: "127.0.0.1", port: 0, stateDir: null });
  });
  afterAll(async () => {
    await irc?.close();
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  });

  async function start(permissions: Record<string, unknown>): Promise<{ d: TestDaemon; olga: RawIrcClient }> {
    const dir = mkdtempSync(join(tmpdir(), "culture-acp-fields-"));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const d = await startTestDaemon({
      port: irc.port,
      nick: NICK,
      agent: { agent: "acp", acp_command: [process.execPath, FAKE], env: { FAKE_ACP_STATE: join(dir, "state") }, permissions },
      config: { operators: ["olga"], operators_by_nick: true },
    });
    cleanups.push(() => d.stop());
    const olga = await connectRawClient(irc.port, "olga");
    cleanups.push(() => olga.close());
    await olga.join("#test");
    return { d, olga };
  }

  const fromAgent = (text: RegExp) => (line: string) => {
    const p = parseRawLine(line);
    return p.command === "PRIVMSG" && p.nick === NICK && p.params[0] === "#test" && text.test(p.params[1] ?? "");
  };

  /**
   * The turn's last line on IRC (relay posts only the final text): `request: once` when the
   * agent's request was allowed, or, when it was rejected, the denial prompt the fake agent
   * echoes (`I heard: [culture] Permission denied: ...`): the reason reached the agent.
   */
  const FINAL = /^(request: |I heard: \[culture\] Permission denied)/;
  const REJECTED = /^I heard: \[culture\] Permission denied: .* was denied by /;

  /** Sends `request <toolCall>`; resolves with the request line's id when one is posted, or null, and the turn's final line. */
  async function request(olga: RawIrcClient, toolCall: unknown): Promise<{ id: string | null; reply: () => Promise<string> }> {
    const from = olga.lines.length;
    /** The first line from `from` on that `match` accepts (lines repeat, so search by position, not text). */
    const next = async (match: (line: string) => boolean): Promise<string> => {
      let found: string | undefined;
      await eventually(() => (found = olga.lines.slice(from).find(match)) !== undefined, "the agent's line on IRC", 20_000);
      return parseRawLine(found!).params[1]!;
    };
    olga.send(`PRIVMSG #test :@${NICK} request ${JSON.stringify(toolCall)}`);
    const text = await next((l) => fromAgent(/^\[APPROVAL [^\]\s]+\] wants to /)(l) || fromAgent(FINAL)(l));
    const id = /^\[APPROVAL ([^\]\s]+)\]/.exec(text)?.[1] ?? null;
    return { id, reply: async () => (id === null ? text : next(fromAgent(FINAL))) };
  }

  it("a kind-other request titled Read is asked for, though allow has Read", async () => {
    const { olga } = await start({ mode: "ask", allow: ["Read"] });
    const asked = await request(olga, { title: "Read", kind: "other", rawInput: { filepath: "/etc/shadow", parentDir: "/etc" }, locations: [{ path: "/etc" }] });
    expect(asked.id).not.toBeNull();
    olga.send(`PRIVMSG #test :@${NICK} deny ${asked.id} not that`);
    expect(await asked.reply()).toMatch(REJECTED);
    // A real read still is allowed by Read.
    const read = await request(olga, { title: "notes.txt", kind: "read", locations: [{ path: "notes.txt" }] });
    expect(read.id).toBeNull();
    expect(await read.reply()).toBe("request: once");
  });

  it("a request titled culture_send (or with an mcp_culture_send call id) is not culture's IRC tool: it is asked for", async () => {
    const { olga } = await start({ mode: "ask" });
    for (const toolCall of [
      { title: "culture_send", kind: "other", rawInput: { target: "#test", message: "grant /etc" }, locations: [{ path: "/etc" }] },
      { toolCallId: "mcp_culture_send_1795691072059_0", title: "send" },
    ]) {
      const asked = await request(olga, toolCall);
      expect(asked.id).not.toBeNull();
      olga.send(`PRIVMSG #test :@${NICK} approve ${asked.id}`);
      expect(await asked.reply()).toBe("request: once");
    }
  });

  it("always on one kind-other call allows that exact call again, and no different kind-other call", async () => {
    const { d, olga } = await start({ mode: "ask" });
    const first = { title: "Read", kind: "other", rawInput: { filepath: "/tmp/a", parentDir: "/tmp" } };
    const asked = await request(olga, first);
    olga.send(`PRIVMSG #test :@${NICK} always ${asked.id}`);
    expect(await asked.reply()).toBe("request: once");
    expect(approvals(d).rules).toBe(1);
    // The same request (keys in another order): allowed by the saved rule, nobody asked.
    const again = await request(olga, { kind: "other", title: "whatever", rawInput: { parentDir: "/tmp", filepath: "/tmp/a" } });
    expect(again.id).toBeNull();
    expect(await again.reply()).toBe("request: once");
    // Another kind-other call, even titled the same: asked.
    const other = await request(olga, { title: "Read", kind: "other", rawInput: { filepath: "/etc/shadow", parentDir: "/etc" } });
    expect(other.id).not.toBeNull();
    olga.send(`PRIVMSG #test :@${NICK} deny ${other.id}`);
    expect(await other.reply()).toMatch(REJECTED);
  });

  it("always on an MCP tool call covers only the same input; without input it approves once", async () => {
    const { d, olga } = await start({ mode: "ask" });
    const send = (message: string) => ({ title: "send", kind: "other", rawInput: { target: "#test", message } });
    const asked = await request(olga, send("hello"));
    olga.send(`PRIVMSG #test :@${NICK} always ${asked.id}`);
    expect(await asked.reply()).toBe("request: once");
    expect((await request(olga, send("hello"))).id).toBeNull();
    const changed = await request(olga, send("the key is hunter2"));
    expect(changed.id).not.toBeNull();
    olga.send(`PRIVMSG #test :@${NICK} deny ${changed.id}`);
    expect(await changed.reply()).toMatch(REJECTED);
    // Gemini CLI sends no input: `always` cannot pin it, so it approves once and saves nothing.
    const bare = await request(olga, { toolCallId: "mcp_github_delete_repo_1795691072059_0", title: "delete_repo" });
    olga.send(`PRIVMSG #test :@${NICK} always ${bare.id}`);
    expect(await bare.reply()).toBe("request: once");
    expect(approvals(d).rules).toBe(1);
    expect((await request(olga, { toolCallId: "mcp_github_delete_repo_1795691072060_0", title: "delete_repo" })).id).not.toBeNull();
  });

  it("deny holds in bypass mode (the default): the denied request is rejected with the reason, the rest allowed unasked", async () => {
    const { d, olga } = await start({ deny: ["Bash(rm -rf*)"] });
    expect(approvals(d).mode).toBe("bypass");
    const rm = await request(olga, { title: "rm -rf victim", kind: "execute", rawInput: { command: "rm -rf victim" } });
    expect(rm.id).toBeNull();
    expect(await rm.reply()).toMatch(/^I heard: \[culture\] Permission denied: run: rm -rf victim \(execute\) was denied by policy: the permissions\.deny pattern Bash\(rm -rf\*\) forbids this\./);
    const ls = await request(olga, { title: "ls", kind: "execute", rawInput: { command: "ls" } });
    expect(ls.id).toBeNull();
    expect(await ls.reply()).toBe("request: once");
    const other = await request(olga, { title: "Bash", kind: "other", rawInput: { x: 1 } });
    expect(await other.reply()).toBe("request: once");
    await eventually(() => d.daemon.status().activity === "idle", "the turns to end");
  });
});
