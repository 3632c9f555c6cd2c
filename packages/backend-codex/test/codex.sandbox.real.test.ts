/**
 * `sandbox: bwrap` with the REAL Codex CLI (network on) against the scripted Responses API:
 * `codex app-server` runs inside a bubblewrap box with its CODEX_HOME bound in. On a mention the
 * scripted model runs `cat ~/.ssh/id_rsa` (the key is in the agent's HOME outside; inside, HOME
 * is an empty tmpfs), then speaks through both IRC tools: `culture channel send` from the shell
 * and the `culture` MCP server's send tool with the cat's result.
 * Needs `npm run build` and `node scripts/install-agent-clis.mjs codex`.
 */
import { connectRawClient, eventually, parseIrcPrompt, parseRawLine, type ModelScript } from "@culture/core/testing";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFailed } from "vitest";
import { ircSuite, makeCodexHome, startRealCodexDaemon, startResponsesApi } from "./helpers/real-codex.js";

const NICK = "spark-codex";
const KEY = "-----BEGIN OPENSSH PRIVATE KEY----- codex-sandbox-test";

/** The send tool as Codex offers it to the model (e.g. `mcp__culture__send`). */
const sendTool = (tools: string[]) => tools.find((t) => /culture/.test(t) && /send$/.test(t));

/** cat the key, say hello through the shell, report the cat's output through MCP, done. */
const script: ModelScript = (req) => {
  const prompt = parseIrcPrompt(req.userTexts.filter((t) => parseIrcPrompt(t)).at(-1) ?? "");
  const tool = sendTool(req.tools);
  if (!prompt || !tool) return { text: "ok" };
  const done = req.toolResults.length;
  if (done === 0) return { shell: "cat ~/.ssh/id_rsa" };
  if (done === 1) return { shell: `culture channel send '${prompt.target}' 'hello from the box'` };
  if (done === 2) return { tool, input: { target: prompt.target, message: `cat said: ${req.toolResults[0]!.output.replace(/\s+/g, " ").slice(0, 200)}` } };
  return { text: "done" };
};

describe("the real Codex CLI in sandbox: bwrap", { timeout: 240_000 }, () => {
  const { cleanups, ircPort } = ircSuite();

  it("answers a mention through the IRC tools from inside the box; the SSH key cannot be read", async () => {
    const api = await startResponsesApi(script);
    cleanups.push(() => api.close());
    const home = makeCodexHome(api);
    cleanups.push(() => home.remove());
    mkdirSync(join(home.dir, ".ssh"), { recursive: true, mode: 0o700 });
    writeFileSync(join(home.dir, ".ssh", "id_rsa"), `${KEY}\n`, { mode: 0o600 });
    const alice = await connectRawClient(ircPort(), "alice");
    cleanups.push(() => alice.close());
    await alice.join("#test");
    const lines: string[] = [];
    const started = startRealCodexDaemon({ ircPort: ircPort(), api, home, nick: NICK, agent: { sandbox: "bwrap" } });
    cleanups.push(async () => (await started.catch(() => undefined))?.stop());
    onTestFailed(() => {
      console.error(`--- model API requests\n${api.requests.map((r) => `${r.method} ${r.path} ${r.status ?? "open"} results=${JSON.stringify(r.model?.toolResults ?? [])} reply=${JSON.stringify(r.reply ?? null)}`).join("\n")}`);
      console.error(lines.join("\n"));
    });
    const d = await started;
    const said = (text: RegExp) => (line: string) => {
      const p = parseRawLine(line);
      return p.command === "PRIVMSG" && p.nick === NICK && p.params[0] === "#test" && text.test(p.params[1] ?? "");
    };

    alice.send(`PRIVMSG #test :@${NICK} show me the key`);
    await alice.waitFor(said(/^hello from the box$/), 120_000);
    const report = await alice.waitFor(said(/^cat said: /), 60_000);
    expect(report).toMatch(/No such file or directory/);
    await eventually(() => d.daemon.status().activity === "idle", "the turn to end", 30_000);
    expect(d.daemon.status().sandbox).toEqual({ kind: "bwrap", network: "on" });
    const results = api.turns().flatMap((t) => t.toolResults.map((r) => r.output));
    expect(results[0]).toMatch(/id_rsa: No such file or directory/);
    expect(results.join("\n")).not.toContain(KEY);
    expect(alice.lines.join("\n")).not.toContain(KEY);
    // Codex really runs inside bwrap: its process's parent chain leads to a bwrap.
    expect(codexUnderBwrap(home.codexHome)).toBe(true);
  });
});

/** True when a live `app-server` process with this CODEX_HOME has a bwrap among its ancestors. */
function codexUnderBwrap(codexHome: string): boolean {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      if (!argv.includes("app-server")) continue;
      if (!readFileSync(`/proc/${entry}/environ`, "utf8").split("\0").includes(`CODEX_HOME=${codexHome}`)) continue;
      for (let pid = entry; pid !== "0" && pid !== "1"; ) {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        if (readFileSync(`/proc/${pid}/cmdline`, "utf8").startsWith("/usr/bin/bwrap") || /\(bwrap\)/.test(stat)) return true;
        pid = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]!;
      }
    } catch {
      // gone meanwhile
    }
  }
  return false;
}
