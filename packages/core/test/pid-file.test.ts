/**
 * PID files and the "is it ours?" checks, against real processes: a real zombie (a child whose
 * parent never reaps it), an unrelated live process, and argument matching that a longer nick
 * must not satisfy.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isOurProcess, isProcessAlive, processArgv, processStat, readPidFile, removeFile, writePidFile } from "../src/process/pid-file.js";

const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      /* gone */
    }
  }
});

/** Runs `sh -c script` and resolves with its first stdout line and the shell's pid. */
function shell(script: string): Promise<{ pid: number; firstLine: string }> {
  const child = spawn("sh", ["-c", script], { stdio: ["ignore", "pipe", "ignore"] });
  started.push(child.pid!);
  return new Promise((resolve) => {
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("\n")) resolve({ pid: child.pid!, firstLine: out.split("\n")[0]! });
    });
  });
}

describe("isProcessAlive", () => {
  it("treats a zombie as dead, though kill(pid, 0) still succeeds on it", async () => {
    // The background subshell exits once its parent has become `sleep 30` (exec), which never reaps it.
    const { firstLine } = await shell(`p=$$; (while [ "$(cat /proc/$p/comm)" != sleep ]; do sleep 0.01; done) & echo $!; exec sleep 30`);
    const zombie = Number(firstLine);
    for (let i = 0; i < 500 && processStat(zombie)?.state !== "Z"; i++) await new Promise((r) => setTimeout(r, 10));
    expect(processStat(zombie)?.state).toBe("Z");
    expect(() => process.kill(zombie, 0)).not.toThrow();
    expect(isProcessAlive(zombie)).toBe(false);
    expect(isOurProcess(zombie, [])).toBe(false);
  });

  it("is true for a live process and false for a pid nobody has", async () => {
    const { pid } = await shell("echo up; exec sleep 30");
    expect(isProcessAlive(pid)).toBe(true);
    expect(processStat(pid)).toMatchObject({ ppid: process.pid });
    expect(isProcessAlive(2 ** 22 + 12345)).toBe(false);
    expect(isProcessAlive(0)).toBe(false);
    expect(isProcessAlive(-1)).toBe(false);
  });
});

describe("isOurProcess", () => {
  it("needs every marker as a whole argument: spark-a does not match the daemon of spark-ab, sleep matches nothing", async () => {
    const fake = spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)", "start", "spark-ab", "--foreground"], { stdio: "ignore" });
    started.push(fake.pid!);
    const pid = fake.pid!;
    expect(processArgv(pid)).toEqual([process.execPath, "-e", "setTimeout(() => {}, 30000)", "start", "spark-ab", "--foreground"]);
    expect(isOurProcess(pid, ["start", "spark-ab", "--foreground"])).toBe(true);
    expect(isOurProcess(pid, ["start", "spark-a", "--foreground"])).toBe(false);
    const { pid: sleeper } = await shell("echo up; exec sleep 30");
    for (let i = 0; i < 200 && processArgv(sleeper)?.[0] !== "sleep"; i++) await new Promise((r) => setTimeout(r, 10)); // the exec
    expect(processArgv(sleeper)).toEqual(["sleep", "30"]);
    expect(isOurProcess(sleeper, ["start", "spark-a", "--foreground"])).toBe(false);
  });
});

describe("readPidFile", () => {
  it("reads the pid on the first line and the label on the second; null when missing or malformed", () => {
    const dir = mkdtempSync(join(tmpdir(), "culture-pid-"));
    try {
      const file = join(dir, "agent.pid");
      expect(readPidFile(file)).toBeNull();
      writeFileSync(file, "123\nculture-agent spark-a\n");
      expect(readPidFile(file)).toEqual({ pid: 123, label: "culture-agent spark-a" });
      writeFileSync(file, "456");
      expect(readPidFile(file)).toEqual({ pid: 456, label: null });
      writeFileSync(file, "not a pid\n");
      expect(readPidFile(file)).toBeNull();
      expect(removeFile(file)).toBe(true);
      expect(removeFile(file)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("writePidFile", () => {
  it("writes what readPidFile reads back (this pid and the label), creating the folder", () => {
    const dir = mkdtempSync(join(tmpdir(), "culture-pid-"));
    try {
      const file = join(dir, "pids", "agent-spark-a.pid");
      writePidFile(file, "culture-agent spark-a");
      expect(readPidFile(file)).toEqual({ pid: process.pid, label: "culture-agent spark-a" });
      writePidFile(file, "127.0.0.1:6667", 42);
      expect(readPidFile(file)).toEqual({ pid: 42, label: "127.0.0.1:6667" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
