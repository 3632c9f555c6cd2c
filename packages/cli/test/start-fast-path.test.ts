/**
 * `culture start <nick>` and `culture start --all` (the parent of every fleet start) run
 * without commander and without the barrels of @culture/core and @culture/server (main.ts's fast
 * path, start-args.ts, start-fleet.ts; issue 30): which command lines take it, that every other
 * one still gets commander's parsing and errors, that an error on the fast path prints exactly
 * what the commander path prints, and that a real fleet start on it says Started for each
 * agent. What the parent loaded is read from a module-resolve hook (node:module register) that
 * logs every bare specifier it resolves, by pid. Build first.
 */
import { describe, expect, it } from "vitest";
import { startArgs } from "../src/start-args.js";
import { fastPathRig } from "./fleet-harness.js";

describe("startArgs", () => {
  const fast = (nick: string | undefined, options: Record<string, unknown>, config?: string, debug = false) => ({ nick, options: { timeout: "60", ...options }, config, debug });
  it.each([
    [["start", "--all"], fast(undefined, { all: true })],
    [["start", "spark-a"], fast("spark-a", {})],
    [["start"], fast(undefined, {})],
    [["start", "spark-a", "--all"], fast("spark-a", { all: true })],
    [["--config", "/x/a.yaml", "start", "--all"], fast(undefined, { all: true }, "/x/a.yaml")],
    [["-c", "a.yaml", "--debug", "start", "--all", "--timeout", "5"], fast(undefined, { all: true, timeout: "5" }, "a.yaml", true)],
    [["start", "--parallel=3", "--config=a.yaml", "spark-a", "--timeout=0.5"], fast("spark-a", { parallel: "3", timeout: "0.5" }, "a.yaml")],
    // Values are runStart's to judge, as they are the commander action's.
    [["start", "--all", "--timeout", "soon", "--parallel", "x"], fast(undefined, { all: true, timeout: "soon", parallel: "x" })],
    [["start", "start"], fast("start", {})],
  ] as const)("%j takes the fast path", (argv, expected) => {
    expect(startArgs(argv)).toEqual(expected);
  });

  it.each([
    [[]],
    [["--all"]],
    [["--all", "start"]],
    [["--timeout", "5", "start", "--all"]],
    [["--parallel=2", "start", "--all"]],
    [["start", "spark-a", "--foreground"]],
    [["start", "--all", "--foreground"]],
    [["start", "spark-a", "spark-b"]],
    [["start", "--all", "--all"]],
    [["start", "--all", "--help"]],
    [["start", "--all", "-h"]],
    [["start", "--all", "--timeout"]],
    [["start", "--all", "--timeout="]],
    [["start", "--all", "--timeout", "-5"]],
    [["start", "--all", "--timeout", "5", "--timeout", "6"]],
    [["start", "--all", "--parallel", "--debug"]],
    [["start", "--all", "--parallel=1", "--parallel=2"]],
    [["start", "--all", "--config"]],
    [["start", "--all", "-c", "a", "--config", "b"]],
    [["start", "--all", "-c=a.yaml"]],
    [["start", "--all", "-ca.yaml"]],
    [["start", "--all", "--debug", "--debug"]],
    [["start", "--all", "--"]],
    [["start", "--all", "--bogus"]],
    [["start", "--all", "-a"]],
    [["start", "--al"]],
    [["restart", "--all"]],
    [["stop", "spark-a"]],
    [["status", "start", "--all"]],
  ] as const)("%j is left to commander", (argv) => {
    expect(startArgs(argv)).toBeNull();
  });
});

describe("the fast path against the commander path, with the built CLI", () => {
  const rig = fastPathRig(["spark-a", "spark-b"]);

  /** Runs the CLI with the hook; `loaded` lists the bare specifiers the culture process itself resolved. */
  async function run(args: string[], env: NodeJS.ProcessEnv = {}) {
    const r = await rig.recorded.run(args, env);
    return { code: r.code, stdout: r.stdout, stderr: r.stderr, loaded: r.loaded, commander: r.loaded.includes("commander") };
  }

  /** What the barrels would bring in: commander, the daemon's code, the IRC server. */
  const heavy = (loaded: string[]) => loaded.filter((s) => s === "commander" || s === "@culture/core" || s === "@culture/server");

  it("prints the same errors and exit codes as the commander path, loading neither commander nor a barrel", async () => {
    // A repeated --config makes commander parse the same request (the last one wins).
    const again = ["--config", rig.fleet.configPath];
    const cases = [
      [["start", "spark-nobody"], {}, 1, /spark-nobody/],
      [["start"], {}, 2, /which agent\? culture start <nick> \(or --all\)/],
      [["start", "--all", "--timeout", "0", "--parallel", "2"], {}, 2, /--timeout must be a positive number of seconds, got "0"/],
      [["start", "--all"], { CULTURE_NICK: "spark-a" }, 1, /culture start/],
      [["start", "spark-nobody", "--debug"], {}, 1, /spark-nobody/],
    ] as const;
    // Independent and quick (none gets as far as a spawn): all at once.
    const runs = await Promise.all(cases.map(([args, env]) => Promise.all([run([...args], env), run([...again, ...args], env)])));
    for (const [i, [args, , code, key]] of cases.entries()) {
      const [viaFast, viaCommander] = runs[i]!;
      expect(heavy(viaFast.loaded), args.join(" ")).toEqual([]);
      expect(viaCommander.commander).toBe(true);
      expect([viaFast.code, viaCommander.code]).toEqual([code, code]);
      expect(viaFast.stdout).toBe("");
      expect(viaFast.stderr).toMatch(key);
      if ((args as readonly string[]).includes("--debug")) {
        // --debug prints the stack: its frames name different files, its first line does not.
        expect(viaFast.stderr.split("\n")[0]).toBe(viaCommander.stderr.split("\n")[0]);
        expect(viaFast.stderr).toMatch(/\n {4}at /);
      } else expect(viaFast.stderr).toBe(viaCommander.stderr);
    }
  });

  it("leaves bad flags to commander: its errors, usage exit code 2", async () => {
    const [unknown, two, missing, help] = await Promise.all([
      run(["start", "--all", "--bogus"]),
      run(["start", "spark-a", "spark-b"]),
      run(["start", "--all", "--timeout"]),
      run(["start", "--all", "--help"]),
    ]);
    expect(unknown).toMatchObject({ code: 2, commander: true });
    expect(unknown.stderr).toContain("error: unknown option '--bogus'");
    expect(two).toMatchObject({ code: 2, commander: true });
    expect(two.stderr).toContain("error: too many arguments for 'start'");
    expect(missing).toMatchObject({ code: 2, commander: true });
    expect(missing.stderr).toContain("argument missing");
    expect(help).toMatchObject({ code: 0, commander: true });
    expect(help.stdout).toContain("Usage: culture start [options] [nick]");
  });

  it("starts a real fleet, says Started for each agent, then already running, without commander or a barrel", async () => {
    const first = await run(["start", "--all", "--timeout", "30"]);
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^Started spark-a \(pid \d+\)\nStarted spark-b \(pid \d+\)\n$/);
    expect(heavy(first.loaded)).toEqual([]);
    // It did load what it needs: the lean entries.
    expect(first.loaded).toEqual(expect.arrayContaining(["@culture/core/config", "@culture/server/channel-registry"]));
    const again = await run(["start", "spark-b"]);
    expect(again).toMatchObject({ code: 0, stderr: "" });
    expect(again.stdout).toMatch(/^spark-b is already running \(pid \d+\)\n$/);
    expect(heavy(again.loaded)).toEqual([]);
  });
});
