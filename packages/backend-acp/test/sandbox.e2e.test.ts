/**
 * `sandbox: bwrap` end to end: a real daemon on the embedded IRC server runs the fake ACP agent
 * (a real process that runs the shell commands it is told to) inside a real bubblewrap box. The
 * agent answers a mention and speaks through the IRC tools (`culture channel send`, over the
 * tools socket bound into the box); the owner's SSH key, culture's credentials and another
 * agent's directory cannot be read in there, and the daemon's control socket cannot be reached.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startServer, type IrcServer } from "@culture/server";
import { connectRawClient, eventually, parseRawLine, startTestDaemon, type RawIrcClient, type TestDaemon } from "@culture/core/testing";
import { controlSocketPath } from "@culture/core/paths";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const FAKE = fileURLToPath(new URL("./fixtures/fake-acp-agent.mjs", import.meta.url));
const CULTURE_BIN = fileURLToPath(new URL("../../cli/bin/culture.cjs", import.meta.url));
const NICK = "spark-box";
const KEY = "-----BEGIN OPENSSH PRIVATE KEY----- acp-sandbox-test";
const PASSWORD = "operator-password-acp-sandbox";

describe("an ACP agent in sandbox: bwrap under a real daemon", () => {
  let irc: IrcServer;
  let d: TestDaemon;
  let olga: RawIrcClient;
  let root: string;
  let home: string;
  let other: string;

  beforeAll(async () => {
    irc = await startServer({ host: "127.0.0.1", port: 0, stateDir: null });
    root = realpathSync(mkdtempSync(join(tmpdir(), "culture-acp-sbx-")));
    home = join(root, "home");
    other = join(root, "other-project");
    const culture = join(root, "culture");
    const bin = join(root, "bin");
    for (const dir of [join(home, ".ssh"), join(culture, "credentials"), join(root, "project"), other, bin]) mkdirSync(dir, { recursive: true });
    writeFileSync(join(home, ".ssh", "id_rsa"), `${KEY}\n`);
    writeFileSync(join(culture, "credentials", "spark-operator.json"), JSON.stringify({ password: PASSWORD }));
    writeFileSync(join(other, "secret.txt"), "the other agent's work\n");
    symlinkSync(CULTURE_BIN, join(bin, "culture"));
    d = await startTestDaemon({
      port: irc.port,
      nick: NICK,
      home: culture,
      agent: { agent: "acp", acp_command: [process.execPath, FAKE], directory: join(root, "project"), sandbox: "bwrap" },
      otherAgents: [{ nick: "spark-other", directory: other }],
      config: { operators: ["olga"], operators_by_nick: true },
      env: { HOME: home, PATH: `${bin}:${process.env.PATH ?? ""}` },
    });
    olga = await connectRawClient(irc.port, "olga");
    await olga.join("#test");
  });

  afterAll(async () => {
    await olga?.close();
    await d?.stop().catch(() => undefined);
    await irc?.close();
    rmSync(root, { recursive: true, force: true });
  });

  /** Mentions the agent with `exec <command>` and returns the next line it says in #test. */
  async function exec(command: string): Promise<string> {
    const seen = olga.lines.length;
    olga.send(`PRIVMSG #test :@${NICK} exec ${command}`);
    const line = await olga.waitFor((l) => {
      const p = parseRawLine(l);
      return p.command === "PRIVMSG" && p.nick === NICK && p.params[0] === "#test" && olga.lines.indexOf(l) >= seen;
    }, 30_000);
    await eventually(() => d.daemon.status().activity === "idle", "the turn to end", 30_000);
    return parseRawLine(line).params[1] ?? "";
  }

  it("status says bwrap; the agent speaks through culture channel; the key, the credentials, the other agent's work and the control socket stay out of reach", async () => {
    expect(d.daemon.status().sandbox).toEqual({ kind: "bwrap", network: "on" });
    // The IRC tools work from inside: the agent's own send, not the relay.
    expect(await exec("culture channel send '#test' hello-from-the-box")).toBe("hello-from-the-box");
    // It really is inside: its pid namespace shows a handful of processes.
    expect(Number(await exec("ls /proc | grep -c '^[0-9]'"))).toBeLessThan(12);

    const key = await exec("cat ~/.ssh/id_rsa");
    expect(key).toMatch(/^exec failed: cat: .*\/\.ssh\/id_rsa: No such file or directory/);
    expect(key).not.toContain(KEY);

    const creds = await exec(`cat ${d.home}/credentials/spark-operator.json`);
    expect(creds).toMatch(/^exec failed: cat: .*spark-operator\.json: No such file or directory/);
    expect(creds).not.toContain(PASSWORD);

    expect(await exec(`cat ${other}/secret.txt`)).toMatch(/^exec failed: cat: .*secret\.txt: No such file or directory/);

    const probe = `node -e 'require("net").connect(process.argv[1]).on("connect",()=>console.log("CONNECTED")).on("error",(e)=>console.log("ERR "+e.code))' ${controlSocketPath(NICK, d.env)}`;
    expect(await exec(probe)).toBe("ERR ENOENT");
    // Nothing secret reached IRC.
    const said = olga.lines.join("\n");
    expect(said).not.toContain(KEY);
    expect(said).not.toContain(PASSWORD);
    expect(said).not.toContain("the other agent's work");
  });
});
