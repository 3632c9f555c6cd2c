/**
 * A real ACP agent (OpenCode, Gemini CLI) in `sandbox: { kind: bwrap, network: off }`
 * (docs/sandbox.md): it answers a mention through `culture channel send` from inside the box,
 * and a scripted probe shows what the box keeps out: the owner's SSH key, culture's
 * credentials, and a loopback server outside (directly and through the egress proxy), while the
 * model API (through the egress bridge) and the IRC tools keep working. The model is the only
 * fake; every command runs in the real agent's shell inside the real bubblewrap box.
 */
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from "vitest";
import { createServer, type Server } from "node:http";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { probeOutput, sandboxProbeScript } from "@culture/core/testing";
import { idle, startRealAcpRig, type RealAcpAgentName, type RealAcpRig } from "./real-acp-rig.js";

/** The sandbox suite of one real ACP agent. */
export function describeRealAcpSandbox(agent: RealAcpAgentName): void {
  describe(`the real ${agent} in sandbox: { kind: bwrap, network: off }`, { timeout: 180_000 }, () => {
    let rig: RealAcpRig;
    let secret: Server;
    let secretPort = 0;

    beforeAll(async () => {
      secret = createServer((_req, res) => res.end("SECRET FROM OUTSIDE"));
      await new Promise<void>((r) => secret.listen(0, "127.0.0.1", () => r()));
      secretPort = (secret.address() as AddressInfo).port;
      const script = sandboxProbeScript(() => secretPort);
      rig = await startRealAcpRig({
        agent,
        script,
        nick: `box-${agent}`,
        entry: { sandbox: { kind: "bwrap", network: "off" } },
        sandboxed: true,
        // What the box must keep out: the owner's SSH key, culture's credentials (the test
        // daemon's agent directory is culture's home, so they are inside the agent's directory).
        beforeStart: ({ home, cultureHome }) => {
          mkdirSync(join(home, ".ssh"), { recursive: true });
          writeFileSync(join(home, ".ssh", "id_rsa"), "PRIVATE KEY MATERIAL\n");
          mkdirSync(join(cultureHome, "credentials"), { recursive: true });
          writeFileSync(join(cultureHome, "credentials", "server.yaml"), "password: CULTURE SECRET\n");
        },
      });
    }, 180_000);
    afterAll(async () => {
      await rig?.close();
      secret?.close();
    }, 60_000);

    it("answers a mention: the agent runs `culture channel send` inside the box, its model reached through the bridge", async () => {
      onTestFailed(() => console.error(rig.api.requests.map((r) => `${r.method} ${r.path} ${r.status} ${JSON.stringify(r.reply ?? null)}`).join("\n")));
      rig.olga.send(`PRIVMSG #test :@${rig.nick} hello`);
      await rig.said("#test", new RegExp(`^echo: @${rig.nick} hello \\(prompt 1\\)$`));
      await idle(rig);
    });

    it("inside, ~/.ssh/id_rsa, culture's credentials and a loopback server outside are out of reach; the IRC tools still work", async () => {
      onTestFailed(() => console.error(JSON.stringify(rig.api.turns().flatMap((t) => t.toolResults), null, 1)));
      rig.olga.send(`PRIVMSG #test :@${rig.nick} probe`);
      const line = await rig.said("#test", /^probe reported: /);
      await idle(rig);
      const output = probeOutput(rig.api.turns());
      console.log(`${agent} probe output inside the box:\n${output}`);
      expect(output).toMatch(/ssh=[1-9]/);
      expect(output).toMatch(/creds=[1-9]/);
      expect(output).toMatch(/curl=7\b/); // connection refused: nothing outside is reachable
      expect(output).toMatch(/proxy=403/); // the bridge refuses it
      expect(output).not.toMatch(/PRIVATE KEY MATERIAL|CULTURE SECRET|SECRET FROM OUTSIDE/);
      expect(line).toMatch(/ssh=[1-9].*creds=[1-9].*curl=7.*proxy=403/);
    });
  });
}
