/**
 * The node flags every daemon is started with (packages/cli/src/daemon-flags.ts): the ones this
 * node accepts, and a flag the user set wins over ours.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DAEMON_GLIBC_TUNABLES, daemonEnv, daemonNodeFlags, forgetDaemonEnv } from "../src/daemon-flags.js";

const FLAGS_MODULE = new URL("../dist/daemon-flags.js", import.meta.url).href;

/**
 * How many calls a function that has just turned hot takes to be optimized by TurboFan, in a node
 * with `flags`, after `endStartupTiering()` when `end` is set. Compiled on the main thread
 * (--no-concurrent-recompilation), so the count depends on V8's budgets, not on the machine's load.
 */
function callsToOptimize(flags: string[], end: boolean): number {
  const script = `
    const { endStartupTiering } = await import(${JSON.stringify(FLAGS_MODULE)});
    if (${end}) await endStartupTiering();
    function hot(s) { let h = 0; for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0; return h; }
    let n = 0;
    for (; n < 100000; n++) { hot("PRIVMSG #general :hello " + n); if (%GetOptimizationStatus(hot) & 16) break; }
    process.stdout.write(String(n));`;
  const run = spawnSync(process.execPath, [...flags, "--allow-natives-syntax", "--no-concurrent-recompilation", "--input-type=module", "-e", script], { encoding: "utf8" });
  expect(run.stderr).toBe("");
  return Number(run.stdout);
}

describe("daemonNodeFlags", () => {
  it("gives a daemon a small young generation and a higher optimization budget, which this node accepts", () => {
    const flags = daemonNodeFlags([], "");
    expect(flags).toEqual(["--max-semi-space-size=2", "--interrupt-budget=1000000"]);
    // A V8 flag this node does not know is "bad option" and no daemon would start.
    const run = spawnSync(process.execPath, [...flags, "-e", "process.stdout.write(String(require('v8').getHeapSpaceStatistics().length > 0))"], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toBe("true");
  });

  it("keeps the CLI's own flags and lets a flag the user set, on the command line or in NODE_OPTIONS, win", () => {
    expect(daemonNodeFlags(["--enable-source-maps", "--interrupt-budget=5000"], "")).toEqual(["--enable-source-maps", "--interrupt-budget=5000", "--max-semi-space-size=2"]);
    expect(daemonNodeFlags([], "--max-semi-space-size=16")).toEqual(["--interrupt-budget=1000000"]);
    expect(daemonNodeFlags([], "--require ./x.cjs --interrupt_budget=9000")).toEqual(["--max-semi-space-size=2"]);
    // Another flag that only starts with the same name is not ours.
    expect(daemonNodeFlags(["--interrupt-budget-for-feedback-allocation=100"], "")).toEqual(["--interrupt-budget-for-feedback-allocation=100", "--max-semi-space-size=2", "--interrupt-budget=1000000"]);
  });

  it("gives V8 its usual optimization budget back once the daemon is up: code that turns hot later is optimized as soon as by default", () => {
    const flags = daemonNodeFlags([], "");
    const byDefault = callsToOptimize([], false);
    const whileStarting = callsToOptimize(flags, false);
    const afterStart = callsToOptimize(flags, true);
    expect(whileStarting).toBeGreaterThan(byDefault * 3);
    expect(afterStart).toBeLessThanOrEqual(byDefault);
  });
});

describe("a daemon's start-up-only V8 flags (bin/daemon-image.cjs)", () => {
  const LOADER = fileURLToPath(new URL("../bin/daemon-image.cjs", import.meta.url));

  it("run a start's regular expressions in V8's interpreter; once up, one from the start tiers up after its 100th run, a new one at once", () => {
    // V8 traces each expression's compiles (--trace-regexp-tier-up): "bytecode size" for the
    // interpreter, "needs tier-up compilation" when it is compiled to machine code.
    const script = `
      const loader = require(${JSON.stringify(LOADER)});
      loader.startupFlags(["--max-semi-space-size=2", "--interrupt-budget=1000000"]);
      console.log("== starting");
      const early = /^:(\\S+) PRIVMSG (#\\S+) :(.*)$/;
      for (let i = 0; i < 3; i++) early.exec(":a!b@c PRIVMSG #general :hello " + i);
      console.log("== up");
      loader.endStartupTiering(["--max-semi-space-size=2", "--interrupt-budget=1000000"]);
      const late = /^:(\\S+) NOTICE (\\S+) :(.*)$/;
      for (let i = 0; i < 3; i++) late.exec(":a!b@c NOTICE x :hello " + i);
      console.log("== late ran 3 times");
      for (let i = 0; i < 150; i++) early.exec(":a!b@c PRIVMSG #general :hello " + i);
      console.log("== early ran 150 more");`;
    const run = spawnSync(process.execPath, ["--trace-regexp-tier-up", "-e", script], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    const [, starting, late, early] = run.stdout.split(/^== .*$/m);
    expect(starting).toContain("bytecode size");
    expect(starting).not.toContain("needs tier-up");
    expect(late).toContain("needs tier-up");
    expect(early).toContain("needs tier-up");
  });
});

describe("daemonEnv", () => {
  it("gives a daemon glibc's fixed mmap threshold unless the user set GLIBC_TUNABLES, and takes it back from what its agents inherit", () => {
    expect(daemonEnv({})).toEqual({ GLIBC_TUNABLES: "glibc.malloc.mmap_threshold=131072" });
    expect(daemonEnv({ GLIBC_TUNABLES: "glibc.malloc.arena_max=2" })).toEqual({});
    const ours: NodeJS.ProcessEnv = { GLIBC_TUNABLES: DAEMON_GLIBC_TUNABLES, PATH: "/bin" };
    forgetDaemonEnv(ours);
    expect(ours).toEqual({ PATH: "/bin" });
    const theirs: NodeJS.ProcessEnv = { GLIBC_TUNABLES: "glibc.malloc.arena_max=2" };
    forgetDaemonEnv(theirs);
    expect(theirs).toEqual({ GLIBC_TUNABLES: "glibc.malloc.arena_max=2" });
  });

  it("is a setting this machine's C library accepts: a node started with it runs", () => {
    const run = spawnSync(process.execPath, ["-e", "process.stdout.write('up')"], { encoding: "utf8", env: { ...process.env, ...daemonEnv({}) } });
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe("up");
  });
});
