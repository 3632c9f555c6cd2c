/**
 * culture's own daemon tests: the testing kit's startTestDaemon with the echo backend (a real
 * child process) as the default agent, plus the real `culture` CLI run with the daemon's env.
 */
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import {
  createTestDaemon as createKitDaemon,
  type TestDaemon as KitDaemon,
  type TestDaemonOptions as KitOptions,
} from "../../src/testing/test-daemon.js";

export { eventually, testDaemonEnv as testEnv } from "../../src/testing/test-daemon.js";

/** The echo backend folder (see fixtures/echo-backend/README.md). */
export const ECHO_BACKEND = fileURLToPath(new URL("../fixtures/echo-backend", import.meta.url));
/** The built CLI. */
export const CLI = fileURLToPath(new URL("../../../cli/dist/main.js", import.meta.url));

/** Options of {@link startTestDaemon}: the agent defaults to the echo backend. */
export type TestDaemonOptions = Omit<KitOptions, "agent"> & { agent?: Record<string, unknown> };

/** A running test daemon and the CLI bound to it. */
export interface TestDaemon extends KitDaemon {
  /** Runs `culture <args>` with this daemon's environment (and CULTURE_NICK unless `nick: null`). */
  culture(args: string[], opts?: { nick?: string | null }): Promise<{ exitCode: number; stdout: string; stderr: string }>;
}

/** A test daemon created but not started yet. */
export interface CreatedTestDaemon extends TestDaemon {
  start(): Promise<void>;
}

/** Creates (does not start) a daemon whose agent is the echo backend unless `agent.agent` says otherwise. */
export async function createTestDaemon(opts: TestDaemonOptions): Promise<CreatedTestDaemon> {
  const d = await createKitDaemon({ ...opts, agent: { agent: ECHO_BACKEND, ...opts.agent } });
  return {
    ...d,
    culture: async (args, o = {}) => {
      const cliEnv: NodeJS.ProcessEnv = { ...d.env };
      if (o.nick !== null) cliEnv.CULTURE_NICK = o.nick ?? d.nick;
      const r = await execa(process.execPath, [CLI, ...args], { env: cliEnv, extendEnv: false, reject: false, timeout: 30_000 });
      return { exitCode: r.exitCode ?? -1, stdout: r.stdout, stderr: r.stderr };
    },
  };
}

/** Starts a daemon whose agent is the echo backend unless `agent.agent` says otherwise. */
export async function startTestDaemon(opts: TestDaemonOptions): Promise<TestDaemon> {
  const d = await createTestDaemon(opts);
  await d.start();
  return d;
}

/** Live processes (other than this one) whose environment has CULTURE_HOME=`home`: the daemon's agents. */
export function agentProcesses(home: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const env = readFileSync(`/proc/${name}/environ`, "utf8").split("\0");
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      if (env.includes(`CULTURE_HOME=${home}`) && !/\) Z /.test(stat)) out.push(Number(name));
    } catch {
      /* exited, or not ours to read */
    }
  }
  return out;
}
