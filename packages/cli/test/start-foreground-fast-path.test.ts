/**
 * `culture start <nick> --foreground` (the daemon every `culture start` spawns) runs without
 * commander or the program (main.ts's fast path, foreground-args.ts): which command lines take
 * it, that every other one still gets commander's parsing and errors, that an error inside the
 * fast path prints exactly what the commander path prints, and that a real daemon started on
 * it comes up and stops cleanly. Whether commander was loaded is read from a module-resolve
 * hook (fleet-harness.ts resolveRecorder) that logs the packages it resolves. Build first.
 */
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { foregroundArgs } from "../src/foreground-args.js";
import { eventually, fastPathRig, MAIN } from "./fleet-harness.js";

describe("foregroundArgs", () => {
  const fast = (nick: string, config?: string, debug = false) => ({ nick, config, debug });
  it.each([
    [["start", "spark-a", "--foreground"], fast("spark-a")],
    [["start", "spark-a", "--foreground", "--config", "/x/agents.yaml"], fast("spark-a", "/x/agents.yaml")],
    [["--config", "/x/a.yaml", "start", "--foreground", "spark-a"], fast("spark-a", "/x/a.yaml")],
    [["-c", "a.yaml", "--debug", "start", "spark-a", "--foreground"], fast("spark-a", "a.yaml", true)],
    [["start", "--config=a.yaml", "spark-a", "--foreground", "--debug"], fast("spark-a", "a.yaml", true)],
    [["start", "start", "--foreground"], fast("start")],
  ] as const)("%j takes the fast path", (argv, expected) => {
    expect(foregroundArgs(argv)).toEqual(expected);
  });

  it.each([
    [[]],
    [["start"]],
    [["start", "spark-a"]],
    [["start", "--foreground"]],
    [["start", "--all", "--foreground"]],
    [["start", "spark-a", "--all", "--foreground"]],
    [["start", "spark-a", "spark-b", "--foreground"]],
    [["start", "spark-a", "--foreground", "--timeout", "5"]],
    [["start", "spark-a", "--foreground", "--parallel", "2"]],
    [["start", "spark-a", "--foreground", "--help"]],
    [["start", "spark-a", "--foreground", "-h"]],
    [["start", "spark-a", "--foreground", "--foreground"]],
    [["start", "spark-a", "--foreground", "--config"]],
    [["start", "spark-a", "--foreground", "--config", "--debug"]],
    [["start", "spark-a", "--foreground", "--config="]],
    [["start", "spark-a", "--foreground", "-c", "a", "--config", "b"]],
    [["start", "spark-a", "--foreground", "--debug", "--debug"]],
    [["start", "spark-a", "--foreground", "-ca.yaml"]],
    [["start", "spark-a", "--foreground", "--"]],
    [["start", "spark-a", "--foreground", "--bogus"]],
    [["--foreground", "start", "spark-a"]],
    [["stop", "spark-a", "--foreground"]],
    [["status", "start", "spark-a", "--foreground"]],
  ] as const)("%j is left to commander", (argv) => {
    expect(foregroundArgs(argv)).toBeNull();
  });
});

describe("the fast path against the commander path, with the built CLI", () => {
  const rig = fastPathRig(["spark-a"]);

  /** Runs the CLI with the hook; `commander` says whether it resolved commander. */
  async function run(args: string[], env: NodeJS.ProcessEnv = {}) {
    const r = await rig.recorded.run(args, env);
    return { code: r.code, stdout: r.stdout, stderr: r.stderr, commander: r.loaded.includes("commander") };
  }

  it("prints the same error and exit code as the commander path, without loading commander", async () => {
    // `--timeout` makes commander parse the same request (ignored with --foreground).
    const cases = [
      [[], {}, /spark-nobody/],
      [["--debug"], {}, /spark-nobody/],
      [[], { CULTURE_NICK: "spark-a" }, /culture start/],
    ] as const;
    for (const [extra, env, key] of cases) {
      const viaFast = await run(["start", "spark-nobody", "--foreground", ...extra], env);
      const viaCommander = await run(["start", "spark-nobody", "--foreground", "--timeout", "5", ...extra], env);
      expect(viaFast.commander).toBe(false);
      expect(viaCommander.commander).toBe(true);
      expect(viaFast.code).toBe(1);
      expect(viaCommander.code).toBe(1);
      expect(viaFast.stdout).toBe("");
      expect(viaFast.stderr).toMatch(key);
      if (extra.length) {
        // --debug prints the stack: its frames name different files, its first line does not.
        expect(viaFast.stderr.split("\n")[0]).toBe(viaCommander.stderr.split("\n")[0]);
        expect(viaFast.stderr).toMatch(/\n {4}at /);
      } else expect(viaFast.stderr).toBe(viaCommander.stderr);
    }
  });

  it("leaves bad flags to commander: its errors, usage exit code 2", async () => {
    const unknown = await run(["start", "spark-a", "--foreground", "--bogus"]);
    expect(unknown).toMatchObject({ code: 2, commander: true });
    expect(unknown.stderr).toContain("error: unknown option '--bogus'");
    const noNick = await run(["start", "--foreground"]);
    expect(noNick).toMatchObject({ code: 2, commander: true });
    expect(noNick.stderr).toContain("--foreground runs exactly one agent: culture start <nick> --foreground");
    const two = await run(["start", "spark-a", "spark-b", "--foreground"]);
    expect(two).toMatchObject({ code: 2, commander: true });
    expect(two.stderr).toContain("error: too many arguments for 'start'");
    const missing = await run(["start", "spark-a", "--foreground", "--config"], {});
    expect(missing).toMatchObject({ code: 2, commander: true });
    expect(missing.stderr).toContain("argument missing");
    const help = await run(["start", "spark-a", "--foreground", "--help"]);
    expect(help).toMatchObject({ code: 0, commander: true });
    expect(help.stdout).toContain("Usage: culture start [options] [nick]");
  });

  it("runs a real daemon that joins, says Started, and stops cleanly on SIGTERM, never loading commander", async () => {
    const log = join(rig.dir, "daemon-resolve.log");
    writeFileSync(log, "");
    const child = spawn(process.execPath, [MAIN, "start", "spark-a", "--foreground", "--config", rig.fleet.configPath], {
      env: { ...rig.fleet.env, CULTURE_TEST_RESOLVE_LOG: log, NODE_OPTIONS: `--import ${rig.recorded.register}` },
      stdio: ["ignore", "pipe", "pipe"],
    });
    rig.fleet.pids.add(child.pid!);
    let stdout = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    await eventually(() => stdout.includes(`Started spark-a (pid ${child.pid})`), "the daemon to say Started", 30_000);
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(readFileSync(log, "utf8")).not.toMatch(/ commander\n/);
  });
});
