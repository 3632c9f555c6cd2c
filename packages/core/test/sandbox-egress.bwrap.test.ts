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
import { createServer as createNetServer, type AddressInfo } from "node:net";
import { startEgressProxy, type EgressProxy } from "../src/sandbox/egress-proxy.js";
import { egressForwarderArgv, egressForwarderConfig } from "../src/sandbox/egress-forwarder.js";
import { agentSandboxFor } from "../src/sandbox/agent-sandbox.js";
import { closeEgressBridge, egressSocketPath, withEgressBridge } from "../src/sandbox/egress-bridge.js";
import { sandboxSchema } from "../src/sandbox/sandbox-config.js";
import { mkdirSync, writeFileSync } from "node:fs";
import { spawn } from "node:child_process";

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

describe("network: off through culture's own bwrap box (agentSandboxFor + the bridge)", () => {
  it("the model API in the agent's env is reachable, a loopback server outside is not, the refusal is logged", async () => {
    const root = mkdtempSync(join(tmpdir(), "egress-box-"));
    const model = await listen((req, res) => res.end(`model ok ${req.url}`));
    const secret = await listen((_req, res) => res.end("SECRET"));
    const modelUrl = `http://127.0.0.1:${(model.address() as AddressInfo).port}`;
    const secretPort = (secret.address() as AddressInfo).port;
    const home = join(root, "culture");
    const directory = join(root, "agent");
    mkdirSync(home, { recursive: true });
    mkdirSync(directory, { recursive: true });
    const env = { ...process.env, CULTURE_HOME: home, XDG_RUNTIME_DIR: undefined, HOME: process.env.HOME };
    const warnings: string[] = [];
    const logger = { warn: (m: string) => warnings.push(m), info: () => undefined } as never;
    const spec = sandboxSchema.parse({ kind: "bwrap", network: "off" }) as never;
    const agent = { nick: "spark-box", directory, sandbox: spec };
    // The daemon's IRC-tools socket (bound into every box): a listening stand-in.
    const tools = createNetServer();
    const toolsPath = join(home, "run", "culture-spark-box.sock");
    mkdirSync(join(home, "run"), { recursive: true, mode: 0o700 });
    await new Promise<void>((r) => tools.listen(toolsPath, () => r()));
    try {
      const base = agentSandboxFor({ nick: "spark-box", config: { agents: [agent as never], filepath: null, sandbox: spec }, agent, backend: {}, backendOptions: {}, env, permissions: { protected_paths: [] } })!;
      const sandbox = withEgressBridge(base, { nick: "spark-box", backend: "claude", backendOptions: {}, env, allow: [], logger });
      const script = [
        `echo "model: $(curl -sS -m 5 "$ANTHROPIC_BASE_URL/v1/messages" 2>&1)"`,
        `curl -sS -m 5 http://127.0.0.1:${secretPort}/ >/dev/null 2>&1; echo "direct: exit $?"`,
        `echo "proxy: $(curl -sS -m 5 --noproxy '' -x "$HTTP_PROXY" -o /dev/null -w '%{http_code}' http://127.0.0.1:${secretPort}/ 2>&1)"`,
      ].join("\n");
      const cmd = sandbox.command(["sh", "-c", script], { ...env, ANTHROPIC_BASE_URL: modelUrl });
      expect(cmd.argv[0]).toMatch(/bwrap$/);
      expect(cmd.argv).toContain(egressSocketPath("spark-box", env));
      const out = await new Promise<string>((resolve, reject) => {
        const c = spawn(cmd.argv[0]!, cmd.argv.slice(1), { env: cmd.env as NodeJS.ProcessEnv, stdio: ["ignore", "pipe", "pipe"] });
        let text = "";
        c.stdout.on("data", (d) => (text += d));
        c.stderr.on("data", (d) => (text += d));
        c.on("error", reject);
        c.on("exit", () => resolve(text));
      });
      console.log(out);
      expect(out).toContain("model: model ok /v1/messages");
      expect(out).toContain("direct: exit 7");
      expect(out).toContain("proxy: 403");
      expect(out).not.toContain("SECRET");
      console.log(warnings.join("\n"));
      expect(warnings).toEqual([
        `sandbox egress refused for spark-box: GET http://127.0.0.1:${secretPort}/ (not a model API origin of this agent; network: off lets through only ${modelUrl.slice(7)}, api.anthropic.com:443)`,
      ]);
    } finally {
      await closeEgressBridge("spark-box", env);
      tools.close();
      model.close();
      secret.close();
      rmSync(root, { recursive: true, force: true });
    }
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
