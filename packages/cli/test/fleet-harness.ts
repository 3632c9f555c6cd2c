/**
 * What the fleet tests share: a private CULTURE_HOME with an agents.yaml whose agents use the
 * echo backend (a real agent process, the only fake), the built `culture` binary run as a
 * subprocess, and a record of every pid a test saw, so that whatever a failing test left
 * running is killed afterwards — by those pids only. Build first (`npm run build`).
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll } from "vitest";
import { isProcessAlive, processStat, readPidFile } from "@culture/core";
import { startServer, type IrcServer } from "@culture/server";

/** The built CLI. */
export const MAIN = fileURLToPath(new URL("../dist/main.js", import.meta.url));
/** The echo backend (packages/core/test/fixtures/echo-backend/README.md), used by absolute path. */
export const ECHO_BACKEND = fileURLToPath(new URL("../../core/test/fixtures/echo-backend", import.meta.url));

/** One run of the CLI. */
export interface Run {
  code: number;
  stdout: string;
  stderr: string;
  /** The CLI process's pid (it has exited when the run resolves). */
  pid: number;
}

/** A temp CULTURE_HOME with a config, and the pids seen in it. */
export interface Fleet {
  home: string;
  configPath: string;
  env: NodeJS.ProcessEnv;
  /** Every pid a test saw (daemons, helpers it spawned): killed by {@link Fleet.cleanup}. */
  pids: Set<number>;
  /** Runs `culture --config <configPath> <args>`; records every `(pid N)` it prints. */
  culture(args: string[], options?: { cwd?: string; env?: NodeJS.ProcessEnv; config?: boolean }): Promise<Run>;
  /** Rewrites the config's agents (and extra top-level keys). */
  writeConfig(agents: Array<Record<string, unknown>>, extra?: Record<string, unknown>): void;
  /** Kills what is still alive of the recorded pids (and their process groups), removes the home. */
  cleanup(): Promise<void>;
}

/** The agent entries of echo agents with these nicks, in #test. */
export function echoAgents(nicks: string[], home: string): Array<Record<string, unknown>> {
  return nicks.map((nick) => ({ nick, agent: ECHO_BACKEND, directory: home, channels: ["#test"] }));
}

/** Makes a fleet: home, config (server on 127.0.0.1:`port`), environment. */
export function makeFleet(port: number, nicks: string[], extra: Record<string, unknown> = {}): Fleet {
  // Short: socket paths live under it and must fit in sockaddr_un.
  const home = mkdtempSync(join(tmpdir(), "cf-"));
  const configPath = join(home, "agents.yaml");
  const env: NodeJS.ProcessEnv = { ...process.env, CULTURE_HOME: home, CULTURE_GLOBAL_MODULES: join(home, "no-global"), HOME: join(home, "user") };
  delete env.XDG_RUNTIME_DIR;
  delete env.CULTURE_CONFIG;
  mkdirSync(join(home, "user"));
  const pids = new Set<number>();
  const fleet: Fleet = {
    home,
    configPath,
    env,
    pids,
    writeConfig(agents, more = {}) {
      // No presence channel unless a test asks (docs/presence.md): suites that count channels stay as they were.
      const config = { server: { name: "spark", host: "127.0.0.1", port }, restart: { delay_seconds: 0.2 }, presence: { channel: null }, ...more, agents };
      // JSON is YAML.
      writeFileSync(configPath, JSON.stringify(config, null, 2));
    },
    async culture(args, options = {}) {
      const run = await runCli([...(options.config === false ? [] : ["--config", configPath]), ...args], {
        cwd: options.cwd ?? home,
        env: { ...env, ...options.env },
      });
      for (const m of `${run.stdout}\n${run.stderr}`.matchAll(/\bpid (\d+)/g)) pids.add(Number(m[1]));
      for (const p of pidFilesIn(home)) pids.add(p);
      return run;
    },
    async cleanup() {
      for (const p of pidFilesIn(home)) pids.add(p);
      for (const pid of pids) {
        if (!isProcessAlive(pid)) continue;
        const group = processStat(pid)?.pgid === pid;
        try {
          process.kill(group ? -pid : pid, "SIGKILL");
        } catch {
          /* gone */
        }
      }
      await eventually(() => [...pids].every((p) => !isProcessAlive(p)), "the recorded processes to exit", 10_000).catch(() => undefined);
      rmSync(home, { recursive: true, force: true });
    },
  };
  fleet.writeConfig(echoAgents(nicks, home), extra);
  return fleet;
}

/** A CLI run that also lists the packages (bare specifiers) the culture process itself resolved. */
export interface RecordedRun extends Run {
  loaded: string[];
}

/**
 * Writes a module-resolve hook (node:module register) into `dir`: `run` runs `fleet`'s CLI with
 * it and says what the command line loaded (e.g. whether it resolved commander); `register` is
 * the hook's `--import` file, logging `<pid> <specifier>` lines to $CULTURE_TEST_RESOLVE_LOG.
 */
export function resolveRecorder(dir: string, fleet: () => Fleet): { run: (args: string[], env?: NodeJS.ProcessEnv) => Promise<RecordedRun>; register: string } {
  const hooks = join(dir, "hooks.mjs");
  writeFileSync(
    hooks,
    'import { appendFileSync } from "node:fs";\n' +
      "export async function resolve(specifier, context, next) {\n" +
      '  if (!/^[./]|^node:|^file:/.test(specifier)) appendFileSync(process.env.CULTURE_TEST_RESOLVE_LOG, `${process.pid} ${specifier}\\n`);\n' +
      "  return next(specifier, context);\n" +
      "}\n",
  );
  const register = join(dir, "register.mjs");
  writeFileSync(register, `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
  const run = async (args: string[], env: NodeJS.ProcessEnv = {}): Promise<RecordedRun> => {
    const log = join(dir, `resolve-${Math.random().toString(36).slice(2)}.log`);
    writeFileSync(log, "");
    const r = await fleet().culture(args, { env: { ...env, CULTURE_TEST_RESOLVE_LOG: log, NODE_OPTIONS: `--import ${register}` } });
    const loaded = readFileSync(log, "utf8")
      .split("\n")
      .filter((line) => line.startsWith(`${r.pid} `))
      .map((line) => line.slice(line.indexOf(" ") + 1));
    return { ...r, loaded };
  };
  return { run, register };
}

/**
 * The rig of the fast-path tests, set up before the enclosing describe's tests and torn down
 * after them (every agent stopped): an embedded IRC server, a fleet of `nicks` on it, and a
 * {@link resolveRecorder} in a temp folder. Read its parts inside the tests.
 */
export function fastPathRig(nicks: string[]): { readonly fleet: Fleet; readonly dir: string; readonly recorded: ReturnType<typeof resolveRecorder> } {
  let dir: string;
  let server: IrcServer | undefined;
  let fleet: Fleet | undefined;
  let recorded: ReturnType<typeof resolveRecorder>;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cfp-"));
    recorded = resolveRecorder(dir, () => fleet!);
    server = await startServer({ port: 0, stateDir: null });
    fleet = makeFleet(server.port, nicks);
  });
  afterAll(async () => {
    await fleet?.culture(["stop", "--all"]);
    await fleet?.cleanup();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    get fleet() {
      return fleet!;
    },
    get dir() {
      return dir;
    },
    get recorded() {
      return recorded;
    },
  };
}

/** Runs the built CLI with exactly this environment. */
export function runCli(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [MAIN, ...args], { cwd: options.cwd, env: options.env, timeout: 45_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      resolve({ code, stdout, stderr, pid: child.pid ?? -1 });
    });
  });
}

/** The pids in `$CULTURE_HOME/pids/*.pid`. */
export function pidFilesIn(home: string): number[] {
  let names: string[];
  try {
    names = readdirSync(join(home, "pids"));
  } catch {
    return [];
  }
  return names.map((n) => readPidFile(join(home, "pids", n))?.pid).filter((p): p is number => typeof p === "number");
}

/** Files in a folder of the home (`pids`, `run`); [] when it does not exist. */
export function filesIn(home: string, folder: string): string[] {
  try {
    return readdirSync(join(home, folder));
  } catch {
    return [];
  }
}

/** Live processes whose command line mentions `text` (a test's unique temp home): what a test left behind. */
export function processesMentioning(text: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, "utf8").includes(text) && isProcessAlive(Number(name))) out.push(Number(name));
    } catch {
      /* exited */
    }
  }
  return out;
}

/** Polls `check` until it returns a truthy value; rejects with `what` after `timeoutMs`. */
export async function eventually<T>(check: () => T | Promise<T>, what: string, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ""}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The `(pid N)` of `Started <nick> (pid N)` in a start's output. */
export function startedPid(stdout: string, nick: string): number {
  const m = new RegExp(`^Started ${nick} \\(pid (\\d+)\\)$`, "m").exec(stdout);
  if (!m) throw new Error(`no "Started ${nick} (pid N)" in:\n${stdout}`);
  return Number(m[1]);
}
