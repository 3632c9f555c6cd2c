/**
 * `culture doctor`: everything that has to be right before agents can run, one line per
 * check, each failure with how to fix it — the config, the IRC server (TCP and registration),
 * every agent's backend (resolved and loaded exactly as the daemon would) and the backend's
 * own checks (agent CLI present, signed in), the runtime dir's permissions, and PID or socket
 * files left by daemons that are gone. Exits 1 when any check fails.
 */
import { existsSync, statSync } from "node:fs";
import { dirname } from "node:path";
import type { Command } from "commander";
import {
  CultureError,
  errorMessage,
  isCultureError,
  loadBackend,
  loadConfig,
  resolveBackendForAgent,
  sandboxChecks,
  type CultureConfig,
  type DoctorCheck,
} from "@culture/core";
import { runtimeDir } from "@culture/core/paths";
import { configOption } from "../options.js";
import { inspectAgent } from "../agents.js";
import { IrcLineClient } from "../irc-line-client.js";
import { progress } from "../progress.js";
import { identityChecks } from "./doctor-identity.js";
import { channelChecks } from "./doctor-channels.js";
import { driftChecks } from "./doctor-drift.js";
import { serverModeCheck } from "./doctor-server-mode.js";
import { loginPassword } from "./send.js";

/** Registers `culture doctor`. */
export function registerDoctor(program: Command): void {
  program
    .command("doctor")
    .description("check the config, the IRC server, the backends and the runtime files")
    .option("--timeout <seconds>", "how long the IRC server may take to register us", "10")
    .action(async (opts: { timeout: string }, command: Command) => {
      const timeoutMs = Math.max(0.1, Number(opts.timeout) || 10) * 1000;
      const checks = await runDoctor(configOption(command), timeoutMs, (c) => process.stdout.write(formatCheck(c)));
      const failed = checks.filter((c) => !c.ok).length;
      process.stdout.write(`\n${checks.length} checks, ${failed ? `${failed} failed` : "all passed"}\n`);
      if (failed) process.exitCode = 1;
    });
}

/** Runs every check, calling `report` as each one finishes; returns them all. */
export async function runDoctor(configPath: string | undefined, timeoutMs: number, report: (check: DoctorCheck) => void): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [];
  const add = (c: DoctorCheck) => {
    checks.push(c);
    report(c);
  };
  let config: CultureConfig | null = null;
  try {
    config = await loadConfig(configPath ? { configPath } : {});
    const n = config.agents.length;
    add({ ok: true, name: "config", detail: `${config.filepath} (${n} agent${n === 1 ? "" : "s"})` });
    if (n === 0) add({ ok: false, name: "agents", detail: "the config has no agents", fix: "add one under agents: (culture init writes an example)" });
  } catch (err) {
    add(failure("config", err, isCultureError(err, "E_CONFIG_NOT_FOUND") ? "culture init" : "fix the file, then run: culture config check"));
  }
  if (config) {
    add(await progress("Checking the IRC server", () => checkIrcServer(config, timeoutMs)));
    const mode = await serverModeCheck(config, timeoutMs);
    if (mode) add(mode);
    for (const c of identityChecks(config)) add(c);
    for (const c of await progress("Checking the backends", () => checkBackends(config))) add(c);
  }
  add(checkRuntimeDir());
  if (config) for (const c of await checkStaleFiles(config)) add(c);
  if (config) for (const c of await channelChecks(config)) add(c);
  if (config) for (const c of await driftChecks(config)) add(c);
  if (config) for (const c of await sandboxChecks(config)) add(c);
  return checks;
}

/** `ok    name: detail` or `FAIL  name: detail` with the rest of a long detail and the fix indented under it. */
export function formatCheck(c: DoctorCheck): string {
  const [first = "", ...rest] = c.detail.split("\n");
  const lines = [`${!c.ok ? "FAIL" : c.warning ? "warn" : "ok  "}  ${c.name}: ${first}`];
  for (const l of rest) lines.push(l.trim() ? `      ${l}` : "");
  if ((!c.ok || c.warning) && c.fix) lines.push(`      fix: ${c.fix}`);
  return `${lines.join("\n").replace(/\n{2,}/g, "\n")}\n`;
}

/** TCP connect and registration, as the daemon does first. */
async function checkIrcServer(config: CultureConfig, timeoutMs: number): Promise<DoctorCheck> {
  const { host, port } = config.server;
  const name = "IRC server";
  try {
    const client = await IrcLineClient.connect({
      host,
      port,
      tls: config.server.tls,
      tlsVerify: config.server.tls_verify,
      password: await loginPassword(config.server),
      sasl: config.server.sasl,
      nick: `${config.server.name ?? "culture"}-doctor`,
      realname: "culture doctor",
      timeoutMs,
    });
    const nick = client.nick;
    await client.quit("culture doctor").catch(() => client.destroy());
    return { ok: true, name, detail: `${host}:${port}${config.server.tls ? " (TLS)" : ""} registered us as ${nick}` };
  } catch (err) {
    // ircUnreachable's message already says how to fix it.
    return failure(name, err, isCultureError(err, "E_IRC_UNREACHABLE") ? undefined : `check server.host, server.port and server.password in ${config.filepath}`);
  }
}

/** Every agent's backend (and the supervisor's), loaded and validated, then the backend's own checks. */
async function checkBackends(config: CultureConfig): Promise<DoctorCheck[]> {
  const out: DoctorCheck[] = [];
  for (const agent of config.agents) {
    const name = `backend of ${agent.nick}`;
    try {
      const { loaded, options } = await resolveBackendForAgent(config, agent);
      const where = loaded.packageName ? `${loaded.packageName}${loaded.version ? `@${loaded.version}` : ""}` : loaded.path;
      out.push({ ok: true, name, detail: `${loaded.definition.name} (${where}, ${loaded.source})` });
      if (loaded.definition.doctor) {
        try {
          const env = { ...process.env, CULTURE_NICK: agent.nick };
          const checks = await inAgentDirectory(agent.directory, () => loaded.definition.doctor!(options, env));
          for (const c of checks) out.push({ ...c, name: `${agent.nick}: ${c.name}` });
        } catch (err) {
          out.push(failure(`${agent.nick}: ${loaded.definition.name} checks`, err, `report this to the backend's authors (${where})`));
        }
      }
    } catch (err) {
      out.push(failure(name, err));
    }
  }
  const evaluator = config.supervisor?.agent;
  if (evaluator && evaluator !== "command") {
    const configDir = config.filepath ? dirname(config.filepath) : process.cwd();
    try {
      const loaded = await loadBackend(evaluator, { configDir, ...(config.filepath ? { configFile: config.filepath } : {}) });
      out.push(
        loaded.definition.createEvaluator
          ? { ok: true, name: "supervisor evaluator", detail: `${loaded.definition.name} (${loaded.packageName ?? loaded.path})` }
          : {
              ok: false,
              name: "supervisor evaluator",
              detail: `the backend ${loaded.definition.name} has no evaluator (createEvaluator)`,
              fix: "set supervisor.agent to a backend that has one, or use supervisor.agent: command",
            },
      );
    } catch (err) {
      out.push(failure("supervisor evaluator", err));
    }
  }
  return out;
}

/**
 * Runs a backend's own checks from the agent's directory, where the daemon starts the agent:
 * a relative command (`acp_command: ["./bin/agent"]`) is checked where it will really run.
 * A missing directory is itself the failure (the agent could not start there).
 */
async function inAgentDirectory<T>(directory: string, check: () => Promise<T>): Promise<T> {
  const before = process.cwd();
  try {
    process.chdir(directory);
  } catch (err) {
    throw new CultureError("E_AGENT_DIRECTORY", `the agent's directory ${directory} cannot be entered (${errorMessage(err)}); the agent cannot start there`, { cause: err });
  }
  try {
    return await check();
  } finally {
    process.chdir(before);
  }
}

/** The runtime dir holds the IPC sockets: only its owner may enter it. */
function checkRuntimeDir(): DoctorCheck {
  const dir = runtimeDir();
  const name = "runtime dir";
  if (!existsSync(dir)) return { ok: true, name, detail: `${dir} does not exist yet (created 0700 by the first daemon)` };
  const st = statSync(dir);
  const mode = (st.mode & 0o777).toString(8).padStart(3, "0");
  if (!st.isDirectory()) return { ok: false, name, detail: `${dir} is not a directory`, fix: `remove it: rm ${dir}` };
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) {
    return { ok: false, name, detail: `${dir} belongs to uid ${st.uid}, not to you (uid ${uid})`, fix: `set XDG_RUNTIME_DIR or CULTURE_HOME to a directory of yours` };
  }
  if ((st.mode & 0o077) !== 0) {
    return { ok: false, name, detail: `${dir} is mode ${mode}: others can reach the agents' sockets`, fix: `chmod 700 ${dir}` };
  }
  return { ok: true, name, detail: `${dir} (mode ${mode})` };
}

/** PID and socket files of daemons that are gone (a crash, a SIGKILL, a reboot). */
async function checkStaleFiles(config: CultureConfig): Promise<DoctorCheck[]> {
  const states = await Promise.all(config.agents.map((a) => inspectAgent(a.nick)));
  const out: DoctorCheck[] = [];
  for (const s of states) {
    const files: string[] = [];
    if (s.stalePidFile) files.push(`PID file ${s.stalePidFile.path}${s.stalePidFile.pid === null ? "" : ` (pid ${s.stalePidFile.pid} is not ${s.nick}'s daemon)`}`);
    if (s.staleSocket) files.push(`socket ${s.staleSocket} (nobody answers on it)`);
    if (files.length) out.push({ ok: false, name: `stale files of ${s.nick}`, detail: files.join("; "), fix: `culture stop ${s.nick} removes them` });
  }
  const running = states.filter((s) => s.answering || s.pid !== null).length;
  if (out.length === 0) out.push({ ok: true, name: "PID and socket files", detail: `none stale (${running} of ${states.length} agents running)` });
  return out;
}

/** A failed check from an error: its first line is the detail, the rest (a CultureError's hint) follows. */
function failure(name: string, err: unknown, fix?: string): DoctorCheck {
  return { ok: false, name, detail: errorMessage(err), ...(fix ? { fix } : {}) };
}
