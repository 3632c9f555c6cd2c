/**
 * `sandbox: { kind: bwrap, network: off }` with the REAL Codex CLI against the scripted
 * Responses API (docs/sandbox.md, "network: off"): its `base_url` lives in config.toml, so
 * `sandbox.allow` names it; the model is reached through culture's egress bridge, a loopback
 * server outside is not (directly: refused; through the bridge's proxy: 403), and the agent
 * answers through `culture channel send` from its shell.
 */
import { connectRawClient, parseRawLine, probeOutput, sandboxProbeScript } from "@culture/core/testing";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it, onTestFailed } from "vitest";
import { ircSuite, makeCodexHome, startRealCodexDaemon, startResponsesApi } from "./helpers/real-codex.js";

const NICK = "box-codex";

describe("the real Codex CLI in sandbox: { kind: bwrap, network: off }", { timeout: 240_000 }, () => {
  const { cleanups, ircPort } = ircSuite();

  it("reaches its model through the bridge, not a server outside; the IRC tools work", async () => {
    const secret = createServer((_req, res) => res.end("SECRET FROM OUTSIDE"));
    await new Promise<void>((r) => secret.listen(0, "127.0.0.1", () => r()));
    cleanups.push(async () => void secret.close());
    const port = (secret.address() as AddressInfo).port;
    const api = await startResponsesApi(sandboxProbeScript(() => port));
    cleanups.push(() => api.close());
    const home = makeCodexHome(api);
    cleanups.push(() => home.remove());
    const alice = await connectRawClient(ircPort(), "alice");
    cleanups.push(() => alice.close());
    await alice.join("#test");
    const started = startRealCodexDaemon({ ircPort: ircPort(), api, home, nick: NICK, agent: { sandbox: { kind: "bwrap", network: "off", allow: [api.url] } } });
    cleanups.push(async () => (await started.catch(() => undefined))?.stop());
    onTestFailed(() => console.error(`--- model API requests\n${api.requests.map((r) => `${r.method} ${r.path} ${r.status ?? "open"} reply=${JSON.stringify(r.reply ?? null)}`).join("\n")}`));
    const d = await started;

    alice.send(`PRIVMSG #test :@${NICK} probe`);
    const line = await alice.waitFor((l) => {
      const p = parseRawLine(l);
      return p.command === "PRIVMSG" && p.nick === NICK && /^probe reported: /.test(p.params[1] ?? "");
    }, 120_000);
    const output = probeOutput(api.turns());
    console.log(`codex probe output inside the box:\n${output}`);
    expect(output).toMatch(/curl=7\b/);
    expect(output).toMatch(/proxy=403/);
    expect(output).not.toContain("SECRET FROM OUTSIDE");
    expect(parseRawLine(line).params[1]).toMatch(/curl=7.*proxy=403/);
    expect(d.daemon.status().sandbox).toEqual({ kind: "bwrap", network: "off" });
  });
});
