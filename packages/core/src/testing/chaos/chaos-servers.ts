/**
 * IRC servers a chaos test can kill -9 and bring back on the same port: culture's embedded
 * server as its own process (`culture-ircd`, so the kill is real), or InspIRCd.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { connectRawClient, freePort, startIrcServer, type RunningIrcServer } from "../irc-servers.js";

/** The servers the chaos suite runs on. */
export type ChaosServerKind = "embedded" | "inspircd";

/** A server that can be killed and restarted on the same port. */
export interface ChaosServer {
  kind: ChaosServerKind;
  port: number;
  /** SIGKILL: every connection vanishes without a QUIT. */
  kill(): Promise<void>;
  /** Starts it again on the same port (after {@link kill}); ready when a client can register. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts a chaos server of `kind` on a free port. */
export async function startChaosServer(kind: ChaosServerKind): Promise<ChaosServer> {
  if (kind === "inspircd") return fromRunning(await startIrcServer("inspircd"));
  return startEmbeddedProcess();
}

function fromRunning(server: RunningIrcServer): ChaosServer {
  return {
    kind: "inspircd",
    port: server.port,
    kill: () => server.kill(),
    restart: () => server.restart(),
    stop: () => server.stop(),
  };
}

/** The embedded server's CLI (`culture-ircd`) from the workspace. */
function embeddedMain(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve("@culture/server/package.json")), "dist", "main.js");
}

async function startEmbeddedProcess(): Promise<ChaosServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "culture-ircd-"));
  let child: ChildProcess | null = null;
  let output = "";

  const launch = async (): Promise<void> => {
    const proc = spawn(process.execPath, [embeddedMain(), "--port", String(port), "--state-dir", dir, "--no-flood-control", "--open", "--log-level", "warn"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    child = proc;
    proc.stdout?.on("data", (c: Buffer) => (output = (output + c.toString()).slice(-8192)));
    proc.stderr?.on("data", (c: Buffer) => (output = (output + c.toString()).slice(-8192)));
    const deadline = Date.now() + 20_000;
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`culture-ircd exited with ${proc.exitCode} on port ${port}:\n${output}`);
      try {
        const probe = await connectRawClient(port, `probe${Math.floor(Math.random() * 1e6)}`, { timeoutMs: 2_000 });
        await probe.close();
        return;
      } catch (err) {
        if (Date.now() > deadline) throw new Error(`culture-ircd did not accept clients on port ${port}: ${(err as Error).message}\n${output}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  };
  const signal = async (sig: NodeJS.Signals): Promise<void> => {
    const proc = child;
    child = null;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((r) => proc.once("exit", () => r()));
    proc.kill(sig);
    await exited;
  };

  await launch();
  return {
    kind: "embedded",
    port,
    kill: () => signal("SIGKILL"),
    async restart() {
      await signal("SIGKILL");
      await launch();
    },
    async stop() {
      await signal("SIGTERM");
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
