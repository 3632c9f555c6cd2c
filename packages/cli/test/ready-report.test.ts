/**
 * ready-report.ts: the channel on which a detached daemon tells `culture start` that it is up.
 * The real channel (a socket on fd 3, spawned by `culture start`) is exercised by every fleet
 * test and checked in daemon-image.test.ts; here, what each end does with bad input.
 */
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { openReadyChannel, READY_ENV, readReadyReports, type ReadyReport } from "../src/ready-report.js";

describe("readReadyReports (culture start's end)", () => {
  it("passes on each line as a report, however the bytes arrive; anything else is an error that quotes it, shortened", async () => {
    const channel = new PassThrough();
    const reports: ReadyReport[] = [];
    const ended = new Promise<void>((resolve) => readReadyReports(channel, (r) => reports.push(r), resolve));
    const ready = JSON.stringify({ type: "ready", pid: 7, channels_refused: [], cannot_run: null });
    channel.write(ready.slice(0, 10));
    channel.write(`${ready.slice(10)}\n{"type":"err`);
    channel.write(`or","message":"no config: é"}\n`);
    channel.write(`Started spark-a (pid 7)\n{"type":"ready?"}\n${"x".repeat(5000)}\n`);
    channel.end();
    await ended;
    expect(reports.slice(0, 2)).toEqual([
      { type: "ready", pid: 7, channels_refused: [], cannot_run: null },
      { type: "error", message: "no config: é" },
    ]);
    expect(reports[2]).toEqual({ type: "error", message: `the daemon's readiness report is not one: "Started spark-a (pid 7)"` });
    expect(reports[3]!.message).toContain(`not one: "{\\"type\\":\\"ready?\\"}"`);
    expect(reports[4]!.type).toBe("error");
    expect(reports[4]!.message!.length).toBeLessThan(300);
    expect(reports).toHaveLength(5);
  });
});

describe("openReadyChannel (the daemon's end)", () => {
  const dir = mkdtempSync(join(tmpdir(), "ready-report-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("is null when culture start did not name a channel, and takes the variable out of the environment", () => {
    expect(openReadyChannel({})).toBeNull();
    const env: NodeJS.ProcessEnv = { [READY_ENV]: "1" }; // the old IPC form, or anything else
    expect(openReadyChannel(env)).toBeNull();
    expect(env).toEqual({});
  });

  it("leaves the descriptor alone when it is not a socket (a daemon started by hand with the variable set)", () => {
    const file = join(dir, "not-a-socket");
    writeFileSync(file, "");
    const fd = openSync(file, "r+");
    try {
      const env: NodeJS.ProcessEnv = { [READY_ENV]: String(fd) };
      expect(openReadyChannel(env, fd)).toBeNull();
      expect(env).toEqual({});
      expect(readFileSync(file, "utf8")).toBe("");
    } finally {
      closeSync(fd); // still open: nothing closed it
    }
  });

  it("is null for a descriptor that is not open", () => {
    expect(openReadyChannel({ [READY_ENV]: "987" }, 987)).toBeNull();
  });
});
