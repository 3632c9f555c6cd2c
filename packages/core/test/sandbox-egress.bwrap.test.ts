/**
 * The whole egress bridge in a real bubblewrap network namespace (`--unshare-net`): the
 * forwarder runs first inside, then a scripted "agent" (sh + curl) that tries the model API
 * (through the tunnel and through the proxy) and a loopback server outside that it must not
 * reach (directly, through the proxy, and through a CONNECT tunnel).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { createServer, type Server } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { startEgressProxy, type EgressProxy } from "../src/sandbox/egress-proxy.js";
import { egressForwarderArgv, egressForwarderConfig } from "../src/sandbox/egress-forwarder.js";

describe("network: off in bubblewrap: the model API through the bridge, nothing else", () => {
  let dir: string;
  let model: Server;
  let secret: Server;
  let modelPort: number;
  let secretPort: number;
  let proxy: EgressProxy;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "egress-bwrap-"));
    model = await listen((req, res) => res.end(`model ok ${req.url}`));
    secret = await listen((_req, res) => res.end("SECRET"));
    modelPort = (model.address() as AddressInfo).port;
    secretPort = (secret.address() as AddressInfo).port;
    proxy = await startEgressProxy({ socketPath: join(dir, "egress.sock"), allow: [{ host: "127.0.0.1", port: modelPort }], agent: "spark-box" });
  });
  afterAll(async () => {
    await proxy?.close();
    model?.close();
    secret?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("reaches the model API (tunnel and proxy) and not a loopback server outside", async () => {
    const script = [
      `echo "tunnel: $(curl -sS -m 5 http://127.0.0.1:${modelPort}/v1/messages 2>&1)"`,
      `echo "via proxy: $(curl -sS -m 5 --noproxy '' -x "$HTTP_PROXY" http://127.0.0.1:${modelPort}/v1/models 2>&1)"`,
      `curl -sS -m 5 http://127.0.0.1:${secretPort}/ >/dev/null 2>&1; echo "direct: exit $?"`,
      `echo "proxy: $(curl -sS -m 5 --noproxy '' -x "$HTTP_PROXY" -o /dev/null -w '%{http_code}' http://127.0.0.1:${secretPort}/ 2>&1)"`,
      `curl -sS -m 5 -p --noproxy '' -x "$HTTP_PROXY" http://127.0.0.1:${secretPort}/ >/dev/null 2>&1; echo "connect: exit $?"`,
      `curl -sS -m 5 --noproxy '*' http://10.255.255.1/ >/dev/null 2>&1; echo "outside address: exit $?"`,
      `echo "env: $HTTPS_PROXY $NO_PROXY"`,
    ].join("\n");
    const inner = egressForwarderArgv(process.execPath, egressForwarderConfig("/run/culture/egress.sock", proxy ? [{ host: "127.0.0.1", port: modelPort }] : []), ["sh", "-c", script]);
    const argv = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/run", "--bind", proxy.socketPath, "/run/culture/egress.sock", "--unshare-net", "--die-with-parent", "--", ...inner];
    const out = await run("bwrap", argv);
    console.log(out);
    expect(out).toContain("tunnel: model ok /v1/messages");
    expect(out).toContain("via proxy: model ok /v1/models");
    expect(out).toContain("direct: exit 7"); // connection refused: nothing listens there inside
    expect(out).toContain("proxy: 403");
    expect(out).toMatch(/connect: exit (56|22)/); // the CONNECT got a 403
    expect(out).toMatch(/outside address: exit (7|28)/); // no route out of the namespace
    expect(out).toMatch(/env: http:\/\/127\.0\.0\.1:\d+ localhost,127\.0\.0\.1,::1/);
    expect(out).not.toContain("SECRET");
    expect(proxy.refusals.map((r) => r.request)).toEqual([`GET http://127.0.0.1:${secretPort}/`, `CONNECT 127.0.0.1:${secretPort}`]);
  });

  it("passes on the agent's exit status and signals", async () => {
    const inner = egressForwarderArgv(process.execPath, egressForwarderConfig("/run/culture/egress.sock", []), ["sh", "-c", "exit 3"]);
    const argv = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/run", "--bind", proxy.socketPath, "/run/culture/egress.sock", "--unshare-net", "--", ...inner];
    await expect(run("bwrap", argv)).rejects.toMatchObject({ code: 3 });
    const killed = egressForwarderArgv(process.execPath, egressForwarderConfig("/s", []), ["sh", "-c", "kill -9 $$"]);
    await expect(run(killed[0]!, killed.slice(1))).rejects.toMatchObject({ signal: "SIGKILL" });
  });
});

function listen(handler: Parameters<typeof createServer>[1]): Promise<Server> {
  const server = createServer(handler!);
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

function run(cmd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { timeout: 30_000 }, (err, stdout, stderr) => {
      if (err) reject(Object.assign(err, { stdout, stderr }));
      else resolve(stdout + stderr);
    });
  });
}
