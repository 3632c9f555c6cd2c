/**
 * Codex speaking on IRC with `culture` installed the way npm installs it (issue #31): npm's
 * bin is a symlink, `<prefix>/bin/culture -> ../lib/node_modules/culture/bin/culture.cjs`, not
 * the shell-script wrapper the other real suites put on PATH. Codex 0.169 rejects a whole rules
 * file whose `host_executable()` lists a path not named `culture` (the symlink's target), and
 * then every `culture channel send` of the agent fails with `connect EPERM` in its default
 * sandbox.
 *
 * Here `npm install -g --prefix` links this checkout's CLI package (offline, as npm links a
 * folder); the registry route (scripts/local-registry.mjs, packages/cli/test/*.registry.test.ts)
 * makes the same bin symlink. The rules culture writes are checked with the real
 * `codex execpolicy check`, and the real Codex (scripted model API) replies with its own
 * `culture channel send` in the default `workspace-write` sandbox.
 * Needs `npm run build` and `node scripts/install-agent-clis.mjs codex`.
 */
import { connectRawClient, eventually, ircReplyScript, parseRawLine, type RawIrcClient } from "@culture/core/testing";
import { execa } from "execa";
import { mkdtempSync, readFileSync, readlinkSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { channelRule } from "../src/channel-access.js";
import { npmInstallCulture } from "./helpers/npm-culture.js";
import { type CodexHome, ircSuite, makeCodexHome, realCodexExecutable, startRealCodexDaemon, startResponsesApi } from "./helpers/real-codex.js";

const NICK = "spark-npm";

/** Replaces the home's `culture` wrapper with npm's own global install (a bin symlink) of the CLI package. */
async function installCultureWithNpm(home: CodexHome): Promise<{ bin: string; home: CodexHome }> {
  rmSync(join(home.bin, "culture"));
  const { bin, binDir } = await npmInstallCulture(join(home.dir, "npm-global"), home.dir);
  return { bin, home: { ...home, env: { ...home.env, PATH: `${binDir}:${home.env.PATH}` } } };
}

/** `codex execpolicy check` of `argv` against one rules file; its JSON decision. */
async function execpolicy(rules: string, argv: string[]): Promise<{ exitCode: number; decision: string | undefined; output: string }> {
  const r = await execa(realCodexExecutable(), ["execpolicy", "check", "--resolve-host-executables", "--rules", rules, ...argv], { reject: false });
  const output = `${r.stdout}\n${r.stderr}`;
  let decision: string | undefined;
  try {
    decision = (JSON.parse(r.stdout) as { decision?: string }).decision;
  } catch {
    decision = undefined;
  }
  return { exitCode: r.exitCode ?? -1, decision, output };
}

describe("Codex with culture installed by npm (bin symlink to culture.cjs)", () => {
  const { cleanups, ircPort } = ircSuite();

  it("the rules culture writes parse and allow exactly `culture channel ...`; the agent replies with its own culture channel send", { timeout: 180_000 }, async () => {
    const api = await startResponsesApi(ircReplyScript());
    cleanups.push(() => api.close());
    const made = makeCodexHome(api);
    cleanups.push(() => made.remove());
    const { bin, home } = await installCultureWithNpm(made);
    // npm's bin really is a symlink whose target is not named `culture`.
    expect(readlinkSync(bin)).toBe("../lib/node_modules/culture/bin/culture.cjs");
    expect(basename(realpathSync(bin))).toBe("culture.cjs");

    const human: RawIrcClient = await connectRawClient(ircPort(), "alice");
    cleanups.push(() => human.close());
    await human.join("#test");
    const started = startRealCodexDaemon({ ircPort: ircPort(), api, home, nick: NICK });
    cleanups.push(async () => (await started.catch(() => undefined))?.stop());
    await human.waitFor((_, p) => p.command === "JOIN" && p.nick === NICK && p.params[0] === "#test", 60_000);
    await started;

    human.send(`PRIVMSG #test :@${NICK} hello from npm`);
    // The agent's own `culture channel send` ran (outside the sandbox): no `connect EPERM`.
    const tool = await eventually(() => api.turns().find((t) => t.afterToolResult)?.toolResults.at(-1)?.output, "the tool result to reach the model", 90_000);
    expect(tool).not.toMatch(/EPERM/);
    expect(tool).toMatch(/Process exited with code 0/);
    const reply = await human.waitFor((line) => {
      const p = parseRawLine(line);
      return p.command === "PRIVMSG" && p.nick === NICK && p.params[0] === "#test";
    }, 90_000);
    expect(parseRawLine(reply).params[1]).toBe(`echo: @${NICK} hello from npm (prompt 1)`);

    const rules = join(home.codexHome, "rules", "culture.rules");
    expect(readFileSync(rules, "utf8")).toContain(`host_executable(name = "culture", paths = ${JSON.stringify([bin])})`);
    // Codex parses it and allows the agent's IRC client, by name and by the bin's path...
    for (const argv of [["culture", "channel", "send", "#test", "hi"], [bin, "channel", "read", "#test"]]) {
      const r = await execpolicy(rules, argv);
      expect(r, r.output).toMatchObject({ exitCode: 0, decision: "allow" });
    }
    // ...and nothing else: other culture commands, another `culture`, the real file behind the symlink.
    for (const argv of [["culture", "start"], ["./culture", "channel", "send", "#test", "x"], ["/tmp/culture", "channel", "send", "#test", "x"], [realpathSync(bin), "channel", "send", "#test", "x"], ["sh", "-c", "culture channel send x y"]]) {
      const r = await execpolicy(rules, argv);
      expect(r.exitCode, r.output).toBe(0);
      expect(r.decision, `${argv.join(" ")}: ${r.output}`).toBeUndefined();
    }
  });

  it("channelRule leaves out every path not named culture (Codex refuses the whole file otherwise)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "culture-rule-"));
    try {
      const rules = join(dir, "culture.rules");
      writeFileSync(rules, channelRule(["/opt/x/bin/culture", "/opt/x/lib/node_modules/culture/bin/culture.cjs", "/opt/x/bin/culture"]));
      expect(readFileSync(rules, "utf8")).toContain(`paths = ["/opt/x/bin/culture"]`);
      const allowed = await execpolicy(rules, ["/opt/x/bin/culture", "channel", "who", "#test"]);
      expect(allowed, allowed.output).toMatchObject({ exitCode: 0, decision: "allow" });
      const forged = await execpolicy(rules, ["/opt/x/lib/node_modules/culture/bin/culture.cjs", "channel", "who", "#test"]);
      expect(forged.decision, forged.output).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
