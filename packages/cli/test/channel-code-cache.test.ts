/**
 * The V8 code cache bin/culture.cjs keeps for dist/channel.cjs: written once (0600 in a 0700
 * folder), used after, rewritten when V8 rejects it, never used for another build (the hash
 * the build appends names it), and never in the way: a call with a broken, unwritable or
 * turned-off cache answers as one without. Runs a copy of the built bin and bundle (so a test
 * can make "another build") against a real IpcServer on a real socket. Build first.
 */
import { createHash } from "node:crypto";
import { execFile } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { IpcServer, silentLogger, type IpcRequest } from "@culture/core";
import { socketPath } from "@culture/core/paths";

const CLI = fileURLToPath(new URL("..", import.meta.url));
const NICK = "spark-cacher";

let tmp: string;
let runtime: string;
let server: IpcServer;
let requests: IpcRequest[];
/** A fresh copy of bin/culture.cjs and dist/channel.cjs per test, and its own cache home. */
let pkg: string;
let cacheHome: string;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(args: string[], env: Record<string, string | undefined> = {}): Promise<Run> {
  const fullEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries({ PATH: process.env.PATH, HOME: tmp, XDG_RUNTIME_DIR: runtime, XDG_CACHE_HOME: cacheHome, CULTURE_NICK: NICK, ...env })) {
    if (v !== undefined) fullEnv[k] = v;
  }
  return new Promise((resolve) => {
    execFile(process.execPath, [join(pkg, "bin/culture.cjs"), "channel", ...args], { env: fullEnv, cwd: tmp, timeout: 20_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === "number" ? err.code : null) : 0, stdout, stderr });
    });
  });
}

/** The hash line the build appended to the copy's channel.cjs. */
function buildHash(): string {
  const m = /\n\/\/ culture-channel-hash: ([0-9a-f]+)\n$/.exec(readFileSync(join(pkg, "dist/channel.cjs"), "utf8"));
  if (!m) throw new Error("dist/channel.cjs has no hash line: rebuild the CLI (npm run build)");
  return m[1] as string;
}

function cacheDir(home = cacheHome): string {
  return join(home, "culture", "code-cache");
}

function cacheFile(hash = buildHash(), home = cacheHome): string {
  return join(cacheDir(home), `channel-${hash}-${process.version}-${process.arch}.v8`);
}

/**
 * "Another build" of the copy: the same file with `from` replaced by `to` (same length, so V8's
 * own check, which compares only the source's length, would take an old cache) and a new hash line.
 */
function rebuild(from: string, to: string): void {
  expect(to).toHaveLength(from.length);
  const file = join(pkg, "dist/channel.cjs");
  const body = readFileSync(file, "utf8").replace(/\/\/ culture-channel-hash: [0-9a-f]+\n$/, "");
  expect(body).toContain(from);
  const next = body.replace(from, to);
  writeFileSync(file, `${next}// culture-channel-hash: ${createHash("sha256").update(next).digest("hex").slice(0, 32)}\n`);
}

beforeAll(async () => {
  if (!existsSync(join(CLI, "dist/channel.cjs"))) throw new Error("build the CLI first (npm run build)");
  tmp = mkdtempSync(join(tmpdir(), "ccache-"));
  runtime = join(tmp, "run");
  mkdirSync(runtime, { mode: 0o700 });
  server = new IpcServer({
    path: socketPath(NICK, { XDG_RUNTIME_DIR: runtime }),
    logger: silentLogger,
    handler: async (req) => {
      requests.push(req);
      return { ok: true, data: { queued: true } };
    },
  });
  await server.start();
});

afterAll(async () => {
  await server?.stop();
  if (tmp) {
    chmodSync(tmp, 0o700);
    rmSync(tmp, { recursive: true, force: true });
  }
});

let n = 0;
beforeEach(() => {
  requests = [];
  pkg = join(tmp, `pkg-${++n}`);
  cacheHome = join(tmp, `cache-${n}`);
  for (const dir of ["bin", "dist"]) mkdirSync(join(pkg, dir), { recursive: true });
  copyFileSync(join(CLI, "bin/culture.cjs"), join(pkg, "bin/culture.cjs"));
  copyFileSync(join(CLI, "dist/channel.cjs"), join(pkg, "dist/channel.cjs"));
});

const QUEUED = { code: 0, stdout: "queued (not connected; will be sent on reconnect)\n", stderr: "" };

describe("culture channel's code cache", () => {
  it("is written on the first call (0600 in a 0700 folder), then used as it is", async () => {
    expect(await run(["send", "#general", "one"])).toEqual(QUEUED);
    const file = cacheFile();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(cacheDir()).mode & 0o777).toBe(0o700);
    expect(statSync(join(cacheHome, "culture")).mode & 0o777).toBe(0o700);
    const first = statSync(file);
    expect(first.size).toBeGreaterThan(1000);
    expect(await run(["send", "#general", "two"])).toEqual(QUEUED);
    const second = statSync(file);
    expect([second.ino, second.mtimeMs]).toEqual([first.ino, first.mtimeMs]); // read, not rewritten
    expect(readdirSync(cacheDir())).toEqual([`channel-${buildHash()}-${process.version}-${process.arch}.v8`]); // no temporary file left
    expect(requests.map((r) => r.message)).toEqual(["one", "two"]);
  });

  it("is what runs: a cache is used for exactly the build it was made for", async () => {
    // The cache holds the compiled code, text included, and V8 checks only the source's length:
    // were A's cache used for B, B would print A's text. It is filed under A's hash, so B does not.
    expect((await run(["--help"])).stdout).toContain("usage: culture channel <command>");
    const cacheA = cacheFile();
    rebuild("usage: culture channel <command>", "usage: culture channel <COMMAND>");
    const helpB = await run(["--help"]);
    expect(helpB.code).toBe(0);
    expect(helpB.stdout).toContain("usage: culture channel <COMMAND>");
    expect(existsSync(cacheFile())).toBe(true);
    expect(existsSync(cacheA)).toBe(false); // B's cache replaced A's
  });

  it("is rewritten when V8 rejects it (garbage, or made for another node or flags), and the call answers as usual", async () => {
    mkdirSync(cacheDir(), { recursive: true });
    writeFileSync(cacheFile(), "not a code cache at all, just some bytes".repeat(50));
    expect(await run(["send", "#general", "garbage"])).toEqual(QUEUED);
    const rewritten = readFileSync(cacheFile());
    expect(rewritten.toString("latin1")).not.toContain("not a code cache");
    expect(rewritten.length).toBeGreaterThan(1000);
    // Made with other V8 flags: rejected, then rewritten for these.
    const other = await new Promise<Run>((resolve) =>
      execFile(process.execPath, ["--no-lazy-feedback-allocation", join(pkg, "bin/culture.cjs"), "channel", "send", "#general", "flags"], { env: { PATH: process.env.PATH, HOME: tmp, XDG_RUNTIME_DIR: runtime, XDG_CACHE_HOME: cacheHome, CULTURE_NICK: NICK } }, (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === "number" ? err.code : null) : 0, stdout, stderr }),
      ),
    );
    expect(other).toEqual(QUEUED);
    expect(readFileSync(cacheFile()).equals(rewritten)).toBe(false);
    expect(requests.map((r) => r.message)).toEqual(["garbage", "flags"]);
  });

  it("keeps other node versions' caches and removes only older builds' of this node", async () => {
    mkdirSync(cacheDir(), { recursive: true });
    const otherNode = join(cacheDir(), `channel-${buildHash()}-v99.0.0-${process.arch}.v8`);
    const olderBuild = join(cacheDir(), `channel-0123456789abcdef0123456789abcdef-${process.version}-${process.arch}.v8`);
    const notOurs = join(cacheDir(), "something-else.v8");
    for (const f of [otherNode, olderBuild, notOurs]) writeFileSync(f, "x");
    expect(await run(["send", "#general", "prune"])).toEqual(QUEUED);
    expect(readdirSync(cacheDir()).sort()).toEqual([`channel-${buildHash()}-${process.version}-${process.arch}.v8`, `channel-${buildHash()}-v99.0.0-${process.arch}.v8`, "something-else.v8"].sort());
  });

  it("is never in the way: turned off, no place for it, or a folder that cannot be written", async () => {
    expect(await run(["send", "#general", "off"], { CULTURE_CODE_CACHE: "0" })).toEqual(QUEUED);
    expect(existsSync(cacheHome)).toBe(false);
    // No HOME and no XDG_CACHE_HOME (or a relative one, which the XDG spec says to ignore): no cache.
    expect(await run(["send", "#general", "homeless"], { HOME: undefined, XDG_CACHE_HOME: undefined })).toEqual(QUEUED);
    expect(await run(["send", "#general", "relative"], { HOME: undefined, XDG_CACHE_HOME: "relative/cache" })).toEqual(QUEUED);
    expect(existsSync(join(tmp, "relative"))).toBe(false);
    // A file where the folder would be, and a folder without write permission (root may write anyway).
    writeFileSync(cacheHome, "a file, not a folder");
    expect(await run(["send", "#general", "blocked"])).toEqual(QUEUED);
    const locked = join(tmp, `locked-${n}`);
    mkdirSync(join(locked, "culture", "code-cache"), { recursive: true });
    chmodSync(join(locked, "culture", "code-cache"), 0o500);
    expect(await run(["send", "#general", "locked"], { XDG_CACHE_HOME: locked })).toEqual(QUEUED);
    expect(readdirSync(join(locked, "culture", "code-cache")).filter((f) => f.endsWith(".tmp"))).toEqual([]);
    chmodSync(join(locked, "culture", "code-cache"), 0o700);
    expect(requests.map((r) => r.message)).toEqual(["off", "homeless", "relative", "blocked", "locked"]);
  });
});
