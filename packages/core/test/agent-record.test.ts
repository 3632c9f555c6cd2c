/**
 * The agent process record and the reaping of what a killed daemon left, against real
 * processes: what AgentProcess records inside a record's scope (and clears when the process
 * exits), SIGTERM then SIGKILL to a recorded process that ignores SIGTERM, and the records
 * that must not lead to any signal (a gone pid, a malformed file).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../src/logger.js";
import { AgentProcess } from "../src/process/agent-process.js";
import { AgentProcessRecord, readAgentRecord, reapRecordedAgents, withAgentRecord } from "../src/process/agent-record.js";
import { isProcessAlive, isProcessGroupAlive, processArgv, processStat } from "../src/process/pid-file.js";

const dirs: string[] = [];
const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      /* gone */
    }
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function setup() {
  const dir = mkdtempSync(join(tmpdir(), "culture-record-"));
  dirs.push(dir);
  const lines: string[] = [];
  const logger = createLogger({ level: "info", write: (l) => lines.push(l) });
  return { path: join(dir, "agent-processes.json"), logger, lines };
}

/** A node process that ignores SIGTERM and end of input; resolves once its handler is installed. */
function stubborn(detached: boolean): Promise<number> {
  const child = spawn(process.execPath, ["-e", "process.on('SIGTERM', () => {}); setInterval(() => {}, 1e9); console.log('up')"], {
    stdio: ["ignore", "pipe", "ignore"],
    detached,
  });
  started.push(child.pid!);
  return new Promise((resolve) => child.stdout.once("data", () => resolve(child.pid!)));
}

describe("AgentProcessRecord", () => {
  it("records an AgentProcess spawned in its scope (0600: pid, group, start time, argv) and forgets it when it exits", async () => {
    const { path, logger } = setup();
    const record = new AgentProcessRecord(path, logger);
    const proc = await withAgentRecord(record, () =>
      AgentProcess.spawn({ command: ["sleep", "30"], cwd: tmpdir(), env: { PATH: process.env.PATH }, logger, configKey: "command", processGroup: true }),
    );
    const pid = proc.pid!;
    started.push(pid);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readAgentRecord(path)).toEqual([{ pid, pgid: pid, startTime: processStat(pid)!.startTime, argv: processArgv(pid) }]);
    expect(processArgv(pid)).toEqual(["sleep", "30"]);
    await proc.shutdown(200);
    expect(existsSync(path)).toBe(false);
  });

  it("does not record a spawn outside its scope", async () => {
    const { path, logger } = setup();
    new AgentProcessRecord(path, logger);
    const proc = await AgentProcess.spawn({ command: ["sleep", "30"], cwd: tmpdir(), env: { PATH: process.env.PATH }, logger, configKey: "command" });
    started.push(proc.pid!);
    expect(existsSync(path)).toBe(false);
    await proc.kill();
  });
});

describe("reapRecordedAgents", () => {
  it("sends SIGTERM, then SIGKILL after the grace period to a recorded process that ignores SIGTERM", async () => {
    const { path, logger, lines } = setup();
    const pid = await stubborn(false);
    writeFileSync(path, JSON.stringify({ agents: [{ pid, pgid: null, startTime: processStat(pid)!.startTime, argv: processArgv(pid) }] }));
    const reaped = await reapRecordedAgents(path, logger, 300);
    expect(reaped).toMatchObject([{ pid, outcome: "ended", signal: "SIGKILL" }]);
    expect(isProcessAlive(pid)).toBe(false);
    expect(existsSync(path)).toBe(false);
    expect(lines.join("\n")).toContain(`ending agent process ${pid} left running by a previous daemon`);
  });

  it("ends a recorded group leader's whole group", async () => {
    const { path, logger } = setup();
    const pid = await stubborn(true);
    expect(isProcessGroupAlive(pid)).toBe(true);
    writeFileSync(path, JSON.stringify({ agents: [{ pid, pgid: pid, startTime: processStat(pid)!.startTime, argv: processArgv(pid) }] }));
    expect(await reapRecordedAgents(path, logger, 300)).toMatchObject([{ pid, outcome: "ended", signal: "SIGKILL" }]);
    expect(isProcessGroupAlive(pid)).toBe(false);
  });

  it("leaves alone a pid that is gone or whose start time differs, and reads nothing from a malformed file", async () => {
    const { path, logger, lines } = setup();
    const pid = await stubborn(false);
    const other = Number(processStat(pid)!.startTime) + 1;
    writeFileSync(path, JSON.stringify({ agents: [{ pid, pgid: null, startTime: String(other), argv: processArgv(pid) }, { pid: 999_999_999, pgid: null, startTime: "1", argv: [] }] }));
    expect(await reapRecordedAgents(path, logger, 300)).toMatchObject([
      { pid, outcome: "not-ours", signal: null },
      { pid: 999_999_999, outcome: "gone", signal: null },
    ]);
    expect(isProcessAlive(pid)).toBe(true);
    expect(lines.join("\n")).toContain(`not signalling pid ${pid}`);
    writeFileSync(path, "{not json");
    expect(await reapRecordedAgents(path, logger, 300)).toEqual([]);
    expect(existsSync(path)).toBe(false);
  });
});
