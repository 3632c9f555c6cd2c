/**
 * The REAL Copilot runtime (BYOK against the scripted API) in `sandbox: { kind: bwrap,
 * network: off }` (docs/sandbox.md): it answers a mention with `culture channel send` from its
 * `bash` tool inside the box, its model reached through the egress bridge (the provider's
 * `base_url` is let through); the owner's SSH key, culture's credentials and a loopback server
 * outside (directly, and through the egress proxy) are out of reach.
 */
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from "vitest";
import { createServer, type Server } from "node:http";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { connectRawClient, eventually, parseRawLine, probeOutput, sandboxProbeScript, startTestDaemon, type RawIrcClient, type ScriptedModelApi, type TestDaemon } from "@culture/core/testing";
import { startServer, type IrcServer } from "@culture/server";
import { makeCopilotHome, MODEL, MODEL_KEY_VAR, providerField, realCopilotRuntime, startModelApi, type CopilotHome } from "./helpers/real-copilot.js";

const NICK = "box-copilot";

describe("the real Copilot runtime in sandbox: { kind: bwrap, network: off }", { timeout: 180_000 }, () => {
  let irc: IrcServer;
  let api: ScriptedModelApi;
  let home: CopilotHome;
  let d: TestDaemon;
  let alice: RawIrcClient;
  let secret: Server;
  let secretPort = 0;
  const said = (text: RegExp) =>
    alice.waitFor((line) => {
      const p = parseRawLine(line);
      return p.command === "PRIVMSG" && p.nick === NICK && p.params[0] === "#test" && text.test(p.params[1] ?? "");
    }, 90_000);

  beforeAll(async () => {
    secret = createServer((_req, res) => res.end("SECRET FROM OUTSIDE"));
    await new Promise<void>((r) => secret.listen(0, "127.0.0.1", () => r()));
    secretPort = (secret.address() as AddressInfo).port;
    irc = await startServer({ host: "127.0.0.1", port: 0, stateDir: null });
    api = await startModelApi(sandboxProbeScript(() => secretPort));
    home = makeCopilotHome();
    // What the box must keep out: the owner's SSH key, culture's credentials (the test daemon's
    // agent directory is culture's home, so they are inside the agent's directory).
    mkdirSync(join(home.dir, ".ssh"));
    writeFileSync(join(home.dir, ".ssh", "id_rsa"), "PRIVATE KEY MATERIAL\n");
    const cultureHome = mkdtempSync(join(tmpdir(), "culture-d-"));
    mkdirSync(join(cultureHome, "credentials"));
    writeFileSync(join(cultureHome, "credentials", "server.yaml"), "password: CULTURE SECRET\n");
    alice = await connectRawClient(irc.port, "alice");
    await alice.join("#test");
    d = await startTestDaemon({
      port: irc.port,
      nick: NICK,
      home: cultureHome,
      timings: { interruptGraceMs: 10_000 },
      // The daemon's HOME is the agent's: the box binds ~/.copilot under it.
      env: { HOME: home.dir, PATH: home.env.PATH!, [MODEL_KEY_VAR]: "dummy-key" },
      agent: {
        agent: "copilot",
        executable: realCopilotRuntime(),
        model: MODEL,
        env: home.env,
        provider: providerField(api, "responses"),
        sandbox: { kind: "bwrap", network: "off" },
      },
    });
  }, 180_000);
  afterAll(async () => {
    await d?.stop();
    await alice?.close();
    await api?.close();
    await irc?.close();
    secret?.close();
    home?.remove();
  }, 60_000);

  it("answers a mention with culture channel send from inside the box", async () => {
    onTestFailed(() => console.error(api.requests.map((r) => `${r.method} ${r.path} ${r.status} ${JSON.stringify(r.reply ?? null)}`).join("\n")));
    alice.send(`PRIVMSG #test :@${NICK} hello`);
    await said(new RegExp(`^echo: @${NICK} hello \\(prompt 1\\)$`));
    await eventually(() => d.daemon.status().activity === "idle", "the turn to end", 60_000);
  });

  it("inside, ~/.ssh/id_rsa, culture's credentials and a loopback server outside are out of reach", async () => {
    onTestFailed(() => console.error(JSON.stringify(api.turns().flatMap((t) => t.toolResults), null, 1)));
    alice.send(`PRIVMSG #test :@${NICK} probe`);
    const line = await said(/^probe reported: /);
    const output = probeOutput(api.turns());
    console.log(`copilot probe output inside the box:\n${output}`);
    expect(output).toMatch(/ssh=[1-9]/);
    expect(output).toMatch(/creds=[1-9]/);
    expect(output).toMatch(/curl=7\b/);
    expect(output).toMatch(/proxy=403/);
    expect(output).not.toMatch(/PRIVATE KEY MATERIAL|CULTURE SECRET|SECRET FROM OUTSIDE/);
    expect(parseRawLine(line).params[1]).toMatch(/ssh=[1-9].*creds=[1-9].*curl=7.*proxy=403/);
  });
});
