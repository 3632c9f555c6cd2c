/**
 * `sandbox: { kind: bwrap, network: off }` with the REAL Claude Code CLI against the scripted
 * Anthropic API (docs/sandbox.md, "network: off"): its model is reached through culture's
 * egress bridge (ANTHROPIC_BASE_URL, a loopback origin, is tunnelled), a loopback server
 * outside is not (directly: refused; through the bridge's proxy: 403), and the agent answers
 * through `culture channel send` from its Bash tool.
 */
import { probeOutput, sandboxProbeScript } from "@culture/core/testing";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it, onTestFailed } from "vitest";
import { human as connectHuman, ircSuite, privmsg, startRealClaude } from "./real-claude-harness.js";

const NICK = "box-claude";

describe("the real Claude Code CLI in sandbox: { kind: bwrap, network: off }", () => {
  const { cleanups, ircPort } = ircSuite();

  it("reaches its model through the bridge, not a server outside; the IRC tools work", async () => {
    const secret = createServer((_req, res) => res.end("SECRET FROM OUTSIDE"));
    await new Promise<void>((r) => secret.listen(0, "127.0.0.1", () => r()));
    cleanups.push(async () => void secret.close());
    const port = (secret.address() as AddressInfo).port;
    const alice = await connectHuman(ircPort(), "alice");
    cleanups.push(async () => alice.close());
    const a = await startRealClaude({ ircPort: ircPort(), nick: NICK, script: sandboxProbeScript(() => port), agent: { sandbox: { kind: "bwrap", network: "off" } } });
    cleanups.push(() => a.stop());
    onTestFailed(() => console.error(`--- daemon log (last 60 lines)\n${a.lines.slice(-60).join("\n")}`));

    alice.send(`PRIVMSG #test :@${NICK} probe`);
    const line = await alice.waitFor(privmsg(NICK, "#test", /^probe reported: /), 90_000);
    const output = probeOutput(a.api.turns());
    console.log(`claude probe output inside the box:\n${output}`);
    expect(output).toMatch(/curl=7\b/);
    expect(output).toMatch(/proxy=403/);
    expect(output).not.toContain("SECRET FROM OUTSIDE");
    expect(line).toMatch(/curl=7.*proxy=403/);
    expect(a.d.daemon.status().sandbox).toEqual({ kind: "bwrap", network: "off" });
    expect(a.lines.join("\n")).toMatch(/sandbox egress refused for box-claude: GET http:\/\/127\.0\.0\.1:\d+\/ /);
  });
});
