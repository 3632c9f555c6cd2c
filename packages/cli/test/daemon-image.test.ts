/**
 * The daemon image (scripts/daemon-image.mjs, bin/daemon-image.cjs): a daemon `culture start`
 * spawns runs culture's code as one script compiled with a V8 code cache kept in
 * $CULTURE_HOME/cache. What must hold: the daemon runs from it and says how its code was
 * compiled; the cache is saved once up, private, and used by the next start; a backend's
 * `@culture/core` is the image's own core; and a cache culture did not write privately — a
 * symlink, another mode, a folder others can write, bytes V8 rejects — is never run. The ACP
 * backend culture installs with itself runs from the image, and any other copy of it from its
 * own file. Build first.
 */
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { eventually, fastPathRig, MAIN, startedPid } from "./fleet-harness.js";

/** The parent pid of a live process, from /proc (null when it is gone). */
function statOf(pid: number): { ppid: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return { ppid: Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) };
  } catch {
    return null;
  }
}

const IMAGE = fileURLToPath(new URL("../dist/daemon-image.cjs", import.meta.url));
const PROBE = fileURLToPath(new URL("./fixtures/image-probe/index.js", import.meta.url));

describe("the daemon image, with the built CLI", () => {
  const rig = fastPathRig(["spark-a"]);
  const cacheDir = () => join(rig.fleet.home, "cache");
  const cacheFiles = () => (existsSync(cacheDir()) ? readdirSync(cacheDir()).filter((f) => f.endsWith(".v8cache")) : []);
  const log = () => readFileSync(join(rig.fleet.home, "logs", "agent-spark-a.log"), "utf8");

  /** Starts spark-a, waits until it is up (and has saved its cache, if it does), stops it; the start's log lines. */
  async function startAndStop(): Promise<string> {
    const before = existsSync(join(rig.fleet.home, "logs", "agent-spark-a.log")) ? log().length : 0;
    const startedAt = Date.now();
    const run = await rig.fleet.culture(["start", "spark-a"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    startedPid(run.stdout, "spark-a");
    await eventually(() => log().slice(before).includes("Started spark-a"), "the daemon's Started line");
    // A daemon that says it saves a cache does so right after its ready report: wait for the file.
    if (log().slice(before).includes("saving a new cache")) {
      const saved = () => cacheFiles().some((f) => lstatSync(join(cacheDir(), f)).isFile() && lstatSync(join(cacheDir(), f)).mtimeMs >= startedAt - 20); // the kernel stamps files with a coarse clock
      await eventually(() => saved() && !readdirSync(cacheDir()).some((f) => f.endsWith(".tmp")), "the code cache to be saved");
    }
    expect((await rig.fleet.culture(["stop", "spark-a"])).code).toBe(0);
    return log().slice(before);
  }

  beforeEach(() => rmSync(cacheDir(), { recursive: true, force: true }));

  it("saves a private code cache once the daemon is up, and the next start compiles from it", async () => {
    expect(existsSync(IMAGE)).toBe(true);
    const first = await startAndStop();
    expect(first).toMatch(/code cache \S+\.v8cache: none yet; compiled from source, saving a new cache once up \(and a first one once loaded, for the daemons starting beside it\)/);
    const files = cacheFiles();
    expect(files).toHaveLength(1);
    // Named after the image's build, this Node and this machine kind.
    const build = /^\/\/ culture daemon image ([0-9a-f]+)$/m.exec(readFileSync(IMAGE, "utf8").slice(0, 200))![1];
    expect(files[0]).toBe(`daemon-${build}-${process.version}-${process.arch}.v8cache`);
    expect(lstatSync(cacheDir()).mode & 0o777).toBe(0o700);
    expect(lstatSync(join(cacheDir(), files[0]!)).mode & 0o777).toBe(0o600);
    const second = await startAndStop();
    expect(second).toContain(`compiled from the code cache ${join(cacheDir(), files[0]!)}`);
    expect(second).not.toContain("saving a new cache");
  });

  it("`culture start` runs the daemon with the image's loader; with CULTURE_NO_DAEMON_IMAGE, with the program and its ES modules", async () => {
    const argvOf = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    const loader = fileURLToPath(new URL("../bin/daemon-image.cjs", import.meta.url));
    for (const [env, script, note] of [
      [{}, loader, true],
      [{ CULTURE_NO_DAEMON_IMAGE: "1" }, MAIN, false],
    ] as const) {
      const before = existsSync(join(rig.fleet.home, "logs", "agent-spark-a.log")) ? log().length : 0;
      const run = await rig.fleet.culture(["start", "spark-a"], { env });
      expect(run.code).toBe(0);
      const argv = argvOf(startedPid(run.stdout, "spark-a"));
      expect(argv.slice(argv.indexOf(script))).toEqual([script, "start", "spark-a", "--foreground", "--config", rig.fleet.configPath, ""]);
      expect((await rig.fleet.culture(["stop", "spark-a"])).code).toBe(0);
      // How its code was compiled is the first thing an image daemon logs.
      expect(/code cache/.test(log().slice(before))).toBe(note);
    }
  });

  it("the loader run as a script without a usable image (CULTURE_NO_DAEMON_IMAGE) hands the start to the program", async () => {
    const loader = fileURLToPath(new URL("../bin/daemon-image.cjs", import.meta.url));
    const daemon = spawn(process.execPath, [loader, "start", "spark-a", "--foreground", "--config", rig.fleet.configPath], { env: { ...rig.fleet.env, CULTURE_NO_DAEMON_IMAGE: "1" }, stdio: ["ignore", "pipe", "pipe"] });
    rig.fleet.pids.add(daemon.pid!);
    let output = "";
    daemon.stdout!.on("data", (d) => (output += d));
    daemon.stderr!.on("data", (d) => (output += d));
    try {
      await eventually(() => output.includes("Started spark-a"), "the daemon's Started line");
      expect(output).not.toContain("code cache");
    } finally {
      daemon.kill("SIGTERM");
      await new Promise((resolve) => daemon.once("exit", resolve));
    }
  });

  it("a daemon `culture start` spawns has glibc's fixed mmap threshold; the agent it starts does not inherit it", async () => {
    const run = await rig.fleet.culture(["start", "spark-a"]);
    expect(run.code).toBe(0);
    const pid = startedPid(run.stdout, "spark-a");
    try {
      const environ = (p: number) => readFileSync(`/proc/${p}/environ`, "utf8").split("\0");
      expect(environ(pid)).toContain("GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072");
      const agents = await eventually(() => {
        const children = readdirSync("/proc").filter((n) => /^\d+$/.test(n) && statOf(Number(n))?.ppid === pid).map(Number);
        return children.length ? children : null;
      }, "the daemon's agent process");
      for (const agent of agents!) expect(environ(agent).filter((e) => e.startsWith("GLIBC_TUNABLES="))).toEqual([]);
    } finally {
      expect((await rig.fleet.culture(["stop", "spark-a"])).code).toBe(0);
    }
  });

  it("a fleet without a cache: one daemon compiles from source and saves a first cache once loaded; the others wait for it", async () => {
    const nicks = ["spark-a", "spark-b", "spark-c", "spark-d", "spark-e"];
    const echo = fileURLToPath(new URL("../../core/test/fixtures/echo-backend", import.meta.url));
    rig.fleet.writeConfig(nicks.map((nick) => ({ nick, agent: echo, directory: rig.fleet.home, channels: ["#test"] })));
    try {
      const run = await rig.fleet.culture(["start", "--all"]);
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      const logOf = (nick: string) => readFileSync(join(rig.fleet.home, "logs", `agent-${nick}.log`), "utf8");
      const [file] = cacheFiles();
      const notes = nicks.map((nick) => logOf(nick).split("\n").findLast((l) => l.includes(`code cache ${join(cacheDir(), file!)}`)) ?? "");
      // All five were spawned at once (culture start starts 8 per core): one claimed the cache,
      // the others found its claim and waited for what it saved.
      expect(notes.filter((n) => n.includes("none yet; compiled from source, saving a new cache once up (and a first one once loaded"))).toHaveLength(1);
      expect(notes.filter((n) => n.includes("compiled from the code cache"))).toHaveLength(4);
      expect(notes.some((n) => /saved by a daemon that started beside this one \(waited \d+ ms\)/.test(n))).toBe(true);
      // The claimant saves its fuller cache right after its ready report: then one file, no claim.
      await eventually(() => readdirSync(cacheDir()).filter((f) => !f.startsWith("config-")).join() === file, "the cache alone in its folder");
      expect((await rig.fleet.culture(["stop", "--all"])).code).toBe(0);
    } finally {
      rig.fleet.writeConfig([{ nick: "spark-a", agent: echo, directory: rig.fleet.home, channels: ["#test"] }]);
    }
  });

  it("a claim left by a daemon that was killed, or a stale one, holds nobody back: the next daemon takes it over", async () => {
    const build = /^\/\/ culture daemon image ([0-9a-f]+)$/m.exec(readFileSync(IMAGE, "utf8").slice(0, 200))![1];
    const file = join(cacheDir(), `daemon-${build}-${process.version}-${process.arch}.v8cache`);
    const gone = spawnSync("true").pid!; // a pid whose process has ended
    mkdirSync(cacheDir(), { mode: 0o700 });
    writeFileSync(`${file}.lock`, `${gone}\n`, { mode: 0o600 });
    // Another build's claim that nobody holds goes with that build's cache.
    writeFileSync(join(cacheDir(), "daemon-0000-v0-x64.v8cache.lock"), `${gone}\n`, { mode: 0o600 });
    const started = await startAndStop();
    expect(started).toContain(`code cache ${file}: none yet; compiled from source, saving a new cache once up (and a first one once loaded`);
    expect(readdirSync(cacheDir()).filter((f) => !f.startsWith("config-"))).toEqual([basename(file)]);
    expect(await startAndStop()).toContain(`compiled from the code cache ${file}\n`);

    // A claim older than a minute is a dead claimant's even when its pid is alive again (reused).
    rmSync(file);
    writeFileSync(`${file}.lock`, `${process.pid}\n`, { mode: 0o600 });
    utimesSync(`${file}.lock`, new Date(Date.now() - 120_000), new Date(Date.now() - 120_000));
    expect(await startAndStop()).toContain(`code cache ${file}: none yet; compiled from source, saving a new cache once up (and a first one once loaded`);
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it("never runs a cache that is a symlink, readable or writable by others, or in a folder others can write; V8 rejects foreign bytes", async () => {
    await startAndStop();
    const [name] = cacheFiles();
    const file = join(cacheDir(), name!);
    const good = readFileSync(file);

    // A symlink to a cache (even a good one): not followed, and replaced by a real file.
    const elsewhere = join(rig.dir, "planted.v8cache");
    writeFileSync(elsewhere, good, { mode: 0o600 });
    rmSync(file);
    symlinkSync(elsewhere, file);
    expect(await startAndStop()).toContain(`code cache ${file}: not used: it is a symlink; compiled from source, saving a new cache once up`);
    expect(lstatSync(file).isSymbolicLink()).toBe(false);

    // A cache others may write: not used, replaced by a private one.
    chmodSync(file, 0o666);
    expect(await startAndStop()).toContain(`code cache ${file}: not used: owner uid ${process.getuid!()}, mode 0666`);
    expect(lstatSync(file).mode & 0o777).toBe(0o600);

    // A folder others can write: nothing in it is used, and nothing is written into it.
    chmodSync(cacheDir(), 0o777);
    const open = await startAndStop();
    expect(open).toContain(`code cache ${file}: not used: its folder ${cacheDir()} is not private (owner uid ${process.getuid!()}, mode 0777`);
    expect(open).toMatch(/compiled from source\n/);
    chmodSync(cacheDir(), 0o700);

    // Bytes that are not V8's cache for this script (a private file all the same): V8 checks and
    // rejects them, the daemon runs from source and saves a real cache over them.
    writeFileSync(file, Buffer.alloc(good.length, 0x5a), { mode: 0o600 });
    chmodSync(file, 0o600);
    const rejected = await startAndStop();
    expect(rejected).toContain(`code cache ${file}: not used: V8 rejected it`);
    expect(readFileSync(file).equals(Buffer.alloc(good.length, 0x5a))).toBe(false);
    expect(await startAndStop()).toContain(`compiled from the code cache ${file}`);
  });

  it("gives a backend's `@culture/core` and `@culture/core/zod` the image's own modules: one core per daemon", async () => {
    const probe = join(rig.dir, "probe.jsonl");
    rig.fleet.writeConfig([{ nick: "spark-a", agent: PROBE, directory: rig.fleet.home, channels: ["#test"] }]);
    try {
      const run = await rig.fleet.culture(["start", "spark-a"], { env: { IMAGE_PROBE_FILE: probe } });
      expect(run.code).toBe(0);
      await eventually(() => existsSync(probe), "the probe backend's record");
      expect(JSON.parse(readFileSync(probe, "utf8").trim())).toEqual({ image: true, sameCore: true, sameZod: true });
      expect((await rig.fleet.culture(["stop", "spark-a"])).code).toBe(0);
    } finally {
      rig.fleet.writeConfig([{ nick: "spark-a", agent: fileURLToPath(new URL("../../core/test/fixtures/echo-backend", import.meta.url)), directory: rig.fleet.home, channels: ["#test"] }]);
    }
  });
});

describe("the ACP backend, which the image holds itself", () => {
  const rig = fastPathRig(["spark-a"]);
  const BACKEND_ACP = fileURLToPath(new URL("../../backend-acp/", import.meta.url));
  const DEMO_AGENT = fileURLToPath(new URL("../dist/demo-agent.cjs", import.meta.url));

  /**
   * Starts spark-a with the ACP backend (the demo agent) and a module loader hook; stops it once
   * it is up (its agent running). Returns the URLs of every ES module its processes loaded.
   */
  async function modulesLoaded(env: NodeJS.ProcessEnv = {}): Promise<string[]> {
    const record = join(rig.dir, `loaded-${Math.random().toString(36).slice(2)}.txt`);
    const hooks = join(rig.dir, "load-hooks.mjs");
    writeFileSync(hooks, `import { appendFileSync } from "node:fs";\nexport async function load(url, context, next) {\n  appendFileSync(process.env.LOAD_RECORD, url + "\\n");\n  return next(url, context);\n}\n`);
    const register = join(rig.dir, "load-register.mjs");
    writeFileSync(register, `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
    rig.fleet.writeConfig([{ nick: "spark-a", agent: "acp", acp_command: [process.execPath, DEMO_AGENT], directory: rig.fleet.home, channels: ["#test"] }]);
    const run = await rig.fleet.culture(["start", "spark-a"], { env: { ...env, LOAD_RECORD: record, NODE_OPTIONS: `--import ${pathToFileURL(register).href}` } });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    startedPid(run.stdout, "spark-a");
    expect((await rig.fleet.culture(["stop", "spark-a"])).code).toBe(0);
    return readFileSync(record, "utf8").split("\n").filter(Boolean);
  }

  it("runs the installed @culture/backend-acp from the image: its ES module is never loaded", async () => {
    const installed = pathToFileURL(join(BACKEND_ACP, "dist/index.js")).href;
    expect(await modulesLoaded()).not.toContain(installed);
    // The hook sees it where a daemon imports it: without the image.
    expect(await modulesLoaded({ CULTURE_NO_DAEMON_IMAGE: "1" })).toContain(installed);
  });

  it("loads its start's node builtins from Node's code cache, then sets its start-up budget; keeps its young generation's limit; never starts the ES module loader or resolver, nor formats a stack inside the image; reports on fd 3, which its agent never holds", async () => {
    // A probe in the daemon's process (and its agent's, which sets no flag and records nothing):
    // the V8 flags it sets, the builtin modules loaded between its start-up budget and its ready
    // report (compiled from source: V8 takes Node's cache only with every flag at its default),
    // then the young generation's size after a burst of surviving allocations, and at exit
    // whether Node's ES module loader ever ran (a real import(), ~10 ms of CPU in a daemon).
    const record = join(rig.dir, `probe-${Math.random().toString(36).slice(2)}.json`);
    const probe = join(rig.dir, "flag-probe.cjs");
    writeFileSync(
      probe,
      `const fs = require("node:fs"), v8 = require("node:v8");
const link = (fd) => { try { return fs.readlinkSync("/proc/self/fd/" + fd); } catch { return null; } };
// The readiness report's channel: a socket on fd 3 in the daemon (no IPC channel), in no agent.
const daemon = process.env.CULTURE_DAEMON_READY_CHANNEL !== undefined;
const channel = daemon ? link(3) : null, ipc = typeof process.send;
if (process.argv[1] && process.argv[1].endsWith("demo-agent.cjs")) fs.writeFileSync(process.env.PROBE_RECORD + ".agent", JSON.stringify(fs.readdirSync("/proc/self/fd").map(link)));
const flags = [], set = v8.setFlagsFromString;
let mark = -1, late = null, young = null;
// Errors whose stacks were formatted with a frame in the image before the ready report: each
// finds the line ends of the whole 1.4 MB image (~2 ms).
const imageStacks = [];
Error.prepareStackTrace = (err, sites) => {
  if (late === null && sites.some((s) => String(s.getFileName()).endsWith("/dist/daemon-image.cjs"))) imageStacks.push(String(err && err.message));
  return String(err) + sites.map((s) => "\\n    at " + s).join("");
};
v8.setFlagsFromString = function (f) { flags.push(f); set.call(this, f); if (mark < 0 && f === "--interrupt-budget=1000000") mark = process.moduleLoadList.length; };
const write = fs.writeSync;
fs.writeSync = function (fd, data, ...rest) {
  if (fd === 3 && mark >= 0 && late === null && String(data).includes('"type":"ready"')) {
    late = process.moduleLoadList.slice(mark).filter((m) => m.startsWith("NativeModule "));
    let keep = [];
    for (let i = 0; i < 400000; i++) { keep.push({ i, s: "x" + i }); if (keep.length > 50000) keep = []; }
    young = v8.getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_size;
  }
  return write.call(this, fd, data, ...rest);
};
process.on("exit", () => { if (mark >= 0) fs.writeFileSync(process.env.PROBE_RECORD, JSON.stringify({ flags, late, young, esm: process.moduleLoadList.includes("NativeModule internal/modules/esm/module_job"), resolver: process.moduleLoadList.includes("NativeModule internal/modules/esm/resolve"), imageStacks, daemon, channel, ipc, channelAtExit: link(3) })); });
`,
    );
    rig.fleet.writeConfig([{ nick: "spark-a", agent: "acp", acp_command: [process.execPath, DEMO_AGENT], directory: rig.fleet.home, channels: ["#test"] }]);
    const run = await rig.fleet.culture(["start", "spark-a"], { env: { PROBE_RECORD: record, NODE_OPTIONS: `--require ${probe}` } });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    startedPid(run.stdout, "spark-a");
    expect((await rig.fleet.culture(["stop", "spark-a"])).code).toBe(0);
    const seen = JSON.parse(readFileSync(record, "utf8")) as { flags: string[]; late: string[]; young: number; esm: boolean; resolver: boolean; imageStacks: string[]; daemon: boolean; channel: string | null; ipc: string; channelAtExit: string | null };
    // Reported on fd 3, a socket (Node's IPC channel would load net, child_process and the
    // streams while Node boots, compiled from source under the daemon's flags), closed once
    // reported, and never passed on to the agent (Node marks it close-on-exec as it starts).
    expect(seen.daemon).toBe(true);
    expect(seen.ipc).toBe("undefined");
    expect(seen.channel).toMatch(/^socket:\[\d+\]$/);
    expect(seen.channelAtExit).not.toBe(seen.channel);
    const agentFds = JSON.parse(readFileSync(`${record}.agent`, "utf8")) as (string | null)[];
    expect(agentFds.length).toBeGreaterThan(3);
    expect(agentFds).not.toContain(seen.channel);
    // The command line's flags back at V8's defaults, Node's builtins loaded, the start-up flags; V8's defaults once up.
    expect(seen.flags).toEqual([
      ...["--max-semi-space-size=0", "--interrupt-budget=67584"],
      ...["--interrupt-budget=1000000", "--regexp-tier-up-ticks=100", "--no-regexp-peephole-optimization"],
      ...["--interrupt-budget=67584", "--regexp-tier-up-ticks=1", "--regexp-peephole-optimization"],
    ]);
    expect(seen.late).toEqual([]);
    // --max-semi-space-size=2: two 2 MiB semi-spaces at most (V8's default grows to 2 x 16 MiB).
    expect(seen.young).toBeLessThanOrEqual(4 * 2 ** 20);
    expect(seen.esm).toBe(false);
    // Nor Node's ES module resolver: the image finds culture's packages without it (a
    // package's "exports" made require.resolve load it, ~4 ms of every start).
    expect(seen.resolver).toBe(false);
    // No error's stack was formatted from inside the image while it started (Node's stream
    // writer's, made once per process, is made by the loader).
    expect(seen.imageStacks).toEqual([]);
  });

  it("imports a project's own copy of @culture/backend-acp from where it is, not the image's", async () => {
    const modules = join(rig.fleet.home, "node_modules", "@culture");
    mkdirSync(modules, { recursive: true });
    const copy = join(modules, "backend-acp");
    for (const part of ["package.json", "dist", "skill"]) cpSync(join(BACKEND_ACP, part), join(copy, part), { recursive: true });
    symlinkSync(fileURLToPath(new URL("../../core/", import.meta.url)), join(modules, "core"));
    try {
      expect(await modulesLoaded()).toContain(pathToFileURL(join(copy, "dist/index.js")).href);
    } finally {
      rmSync(join(rig.fleet.home, "node_modules"), { recursive: true, force: true });
    }
  });
});

describe("bundledModule (bin/daemon-image.cjs): which imports the image serves", () => {
  const { bundledModule } = createRequire(import.meta.url)("../bin/daemon-image.cjs") as {
    bundledModule(image: unknown, specifier: unknown): Promise<unknown> | null;
  };
  const dir = mkdtempSync(join(tmpdir(), "cdi-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, "index.js");
  writeFileSync(file, "export default 1;\n");
  const url = pathToFileURL(file).href;
  const served = Promise.resolve({ served: true });
  const image = (sha256: string) => ({
    bundledBackends: { "@culture/backend-x": { file: "dist/index.js", sha256, load: () => served } },
    installedUrl: (name: string, rel: string) => (name === "@culture/backend-x" && rel === "dist/index.js" ? url : null),
  });
  const sha = createHash("sha256").update(readFileSync(file)).digest("hex");

  it("serves the installed file the image was built from, byte for byte", () => {
    expect(bundledModule(image(sha), url)).toBe(served);
  });

  it("imports anything else: other bytes at that place, another file, a builtin, a file that is gone", () => {
    expect(bundledModule(image("0".repeat(64)), url)).toBeNull();
    writeFileSync(file, "export default 2;\n");
    expect(bundledModule(image(sha), url)).toBeNull();
    expect(bundledModule(image(sha), pathToFileURL(join(dir, "other.js")).href)).toBeNull();
    expect(bundledModule(image(sha), "node:module")).toBeNull();
    rmSync(file);
    expect(bundledModule(image(sha), url)).toBeNull();
  });
});

describe("core's ES module entries outside a daemon image (dist/facade/*.js)", () => {
  it("export exactly the built module's bindings, the same values", () => {
    const core = fileURLToPath(new URL("../../core/", import.meta.url));
    const pkg = JSON.parse(readFileSync(join(core, "package.json"), "utf8")) as { exports: Record<string, { default?: string }> };
    const facades = Object.entries(pkg.exports).filter(([, e]) => typeof e === "object" && e.default?.startsWith("./dist/facade/"));
    expect(facades.length).toBeGreaterThanOrEqual(8);
    const script = `
      const pairs = ${JSON.stringify(facades.map(([, e]) => [pathToFileURL(join(core, e.default!)).href, pathToFileURL(join(core, e.default!.replace("/facade/", "/"))).href]))};
      const bad = [];
      for (const [facade, real] of pairs) {
        const [f, r] = [await import(facade), await import(real)];
        const keys = Object.keys(r);
        if (Object.keys(f).join() !== keys.join() || keys.some((k) => f[k] !== r[k])) bad.push(facade);
      }
      process.stdout.write(JSON.stringify(bad));`;
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual([]);
  });
});

describe("the built image", () => {
  it("has no import() or import.meta of its own left: V8 drops a cached script's import() callback", async () => {
    const { init, parse } = await import("es-module-lexer");
    await init;
    const text = readFileSync(IMAGE, "utf8");
    const body = text.slice(text.indexOf("{") + 1, text.lastIndexOf("}"));
    const [imports, , , hasModuleSyntax] = parse(body);
    expect(imports.filter((i) => i.d > -1 || i.d === -2)).toEqual([]);
    expect(hasModuleSyntax).toBe(false);
    expect(text).toContain("__cultureImport(");
  });

  it("is ASCII: the loader reads it as Latin-1, one byte a character", () => {
    const bytes = readFileSync(IMAGE);
    expect(bytes.findIndex((b) => b > 0x7f)).toBe(-1);
  });

  it("keeps the text of strings that quote import.meta.url: only the real ones are rewritten", () => {
    const text = readFileSync(IMAGE, "utf8");
    // core's discovery/assert-backend.ts tells a backend author what to write.
    expect(text).toContain('skill.path must be a file: URL (new URL("./skill/SKILL.md", import.meta.url))');
    expect(text).toContain('__cultureUrl("@culture/backend-acp","dist/index.js")');
  });
});
