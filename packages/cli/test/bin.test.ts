/**
 * The `culture` executable (bin/culture.cjs): the CommonJS fast path for `culture channel` and
 * the ESM program for everything else must behave exactly like the ESM entry.
 */
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { describe, expect, it } from "vitest";

const BIN = fileURLToPath(new URL("../bin/culture.cjs", import.meta.url));
const MAIN = fileURLToPath(new URL("../dist/main.js", import.meta.url));

async function run(entry: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = await execa(process.execPath, [entry, ...args], { reject: false, env: { ...process.env, ...env }, extendEnv: false });
  return { code: r.exitCode, stdout: r.stdout, stderr: r.stderr };
}

describe("bin/culture.cjs", () => {
  it("runs the program (--version, --help) through the ESM entry", async () => {
    const version = await run(BIN, ["--version"]);
    expect(version).toEqual(await run(MAIN, ["--version"]));
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+$/);
    expect((await run(BIN, ["--help"])).stdout).toContain("Usage: culture");
  });

  it("answers `channel` through the CommonJS fast path with the same output and exit codes", async () => {
    const env = { CULTURE_NICK: "spark-nobody", CULTURE_HOME: "/nonexistent-culture-home", XDG_RUNTIME_DIR: "" };
    const viaBin = await run(BIN, ["channel", "send", "#general", "hi"], env);
    expect(viaBin.code).toBe(1);
    expect(viaBin.stderr).toContain("agent spark-nobody is not running");
    expect(viaBin).toEqual(await run(MAIN, ["channel", "send", "#general", "hi"], env));
    const usage = await run(BIN, ["channel", "send"], env);
    expect(usage.code).toBe(2);
    expect((await run(BIN, ["channel", "--help"])).stdout).toContain("usage: culture channel <command>");
  });

  it("lists channel in the top-level help, and `culture help channel` prints the channel help (exit 0)", async () => {
    const help = await run(BIN, ["--help"]);
    expect(help.stdout).toMatch(/^ {2}channel \[words\.\.\.\] +talk on IRC as your agent/m);
    const viaHelp = await run(BIN, ["help", "channel"]);
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.stdout).toContain("usage: culture channel <command>");
    expect(viaHelp.stdout).toContain("send <channel|nick> <message...>");
  });
});
