// Runs one agent daemon from the daemon image (dist/daemon-image.cjs, built by
// scripts/daemon-image.mjs) with a V8 code cache. `culture start` runs each daemon as
// `node bin/daemon-image.cjs start <nick> --foreground ...`, and dist/main.js hands it every
// other `culture start <nick> --foreground` (a terminal, the systemd unit). On Node 20 only a
// classic script takes cached code, and compiling culture's code was about half of a daemon's
// start-up CPU (issue 30).
//
// The cache is V8's own code for this build, this Node and these V8 flags: V8 rejects it when
// any of them differ, and the daemon then compiles from source as before and saves a new one
// once it is up. It is code that runs, so it lives where culture's credentials do:
// $CULTURE_HOME/cache (0700; every sandbox hides $CULTURE_HOME, and whoever can write there can
// already change agents.yaml, which says what each daemon runs). A cache file is used only if
// it is a regular file of this user, not a symlink, readable and writable by nobody else.
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const { createRequire } = require("node:module");

const IMAGE = path.join(__dirname, "..", "dist", "daemon-image.cjs");
const PRIVATE = 0o077;

/** `$CULTURE_HOME/cache` (as core's paths.ts finds the home). */
function cacheDir(env) {
  const home = env.CULTURE_HOME ? path.resolve(env.CULTURE_HOME) : path.join(require("node:os").homedir(), ".culture");
  return path.join(home, "cache");
}

/** True when `st` is this user's and nobody else may touch it. */
function ours(st) {
  return st.uid === process.geteuid() && (st.mode & PRIVATE) === 0;
}

/** How `st` fails {@link ours}, for the daemon's log. */
function notOurs(st) {
  return `owner uid ${st.uid}, mode ${(st.mode & 0o777).toString(8).padStart(4, "0")}; culture uses only a file of this user (uid ${process.geteuid()}) that nobody else can read or write`;
}

/**
 * The cached data in `file`, or why there is none to use (and, `save: false`, that none may be
 * written there). Only a regular file (not a symlink) of this user, private, in a private
 * folder of this user.
 */
function readCache(dir, file) {
  let st;
  try {
    st = fs.lstatSync(dir);
  } catch {
    return { problem: "none yet" };
  }
  // Nothing is read from, or written into, a folder that is not private.
  if (!st.isDirectory() || !ours(st)) return { problem: `not used: its folder ${dir} is not private (${notOurs(st)})`, save: false };
  let fd;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch (err) {
    return { problem: err.code === "ENOENT" ? "none yet" : `not used: ${err.code === "ELOOP" ? "it is a symlink" : err.message}` };
  }
  try {
    const fst = fs.fstatSync(fd);
    if (!fst.isFile()) return { problem: "not used: it is not a regular file" };
    if (!ours(fst)) return { problem: `not used: ${notOurs(fst)}` };
    return { data: fs.readFileSync(fd) };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Saves the script's cached data as `file` (written aside, then renamed) and removes caches of
 * other builds. When a fleet starts without a cache, one daemon writes it: the others find its
 * file being written (`<file>.tmp`, made exclusively) and leave it (one older than a minute is a
 * crashed writer's, and is replaced).
 */
function writeCache(dir, file, script) {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = fs.lstatSync(dir);
  if (!st.isDirectory() || !ours(st)) throw new Error(`${dir} is not a private folder of this user; the daemon's code cache is not saved there`);
  const tmp = `${file}.tmp`;
  let fd;
  try {
    fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o600);
  } catch (err) {
    if (err.code !== "EEXIST") throw err;
    if (Date.now() - fs.lstatSync(tmp).mtimeMs < 60_000) return;
    fs.rmSync(tmp, { force: true });
    return writeCache(dir, file, script);
  }
  try {
    try {
      fs.writeFileSync(fd, script.createCachedData());
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } catch (err) {
    // A full disk, ...: no half-written file left for the next daemon to wait on.
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  for (const name of fs.readdirSync(dir)) {
    const other = path.join(dir, name);
    if (!name.startsWith("daemon-") || other === file) continue;
    // Another build's cache, and its claim once nobody holds it.
    if (name.endsWith(".v8cache") || (name.endsWith(".v8cache.lock") && other !== claimOf(file) && claimHeld(other) !== true)) fs.rmSync(other, { force: true });
  }
}

/**
 * The image's import(): a backend's module, a node builtin. Its import() calls are rewritten to
 * this one (scripts/daemon-image.mjs): V8 drops a script's host options when it is compiled
 * from cached data, and an import() inside it would fail. A backend the image holds itself
 * ({@link bundledModule}) comes from the image once it is loaded.
 */
const importFromImage = (specifier) => (loaded && bundledModule(loaded, specifier)) || builtinModule(specifier) || import(specifier);
/** The image, once loaded. */
let loaded = null;

/**
 * The image's own copy of a backend culture installs with itself (scripts/daemon-image-entries.mjs
 * IMAGE_BACKENDS), as a promise of its module, when `specifier` is the URL of that backend's
 * installed entry (symlinks resolved, as culture's discovery imports it) and that file is, byte
 * for byte, the one the image was built from; else null, and the file is imported as usual: a
 * project's own copy, another version, a build of the backend made after the image's.
 */
function bundledModule(image, specifier) {
  if (typeof specifier !== "string" || !specifier.startsWith("file:")) return null;
  for (const [name, backend] of Object.entries(image.bundledBackends)) {
    if (image.installedUrl(name, backend.file) !== specifier) continue;
    let bytes;
    try {
      bytes = fs.readFileSync(new URL(specifier));
    } catch {
      return null; // import() reports it
    }
    if (require("node:crypto").createHash("sha256").update(bytes).digest("hex") !== backend.sha256) return null;
    return backend.load();
  }
  return null;
}

/**
 * A node builtin's module (`node:v8`, `fs/promises`), as a promise of what import() gives, from
 * require(): import() would start Node's ES module loader for it, ~10 ms of CPU in a daemon.
 */
function builtinModule(specifier) {
  if (typeof specifier !== "string" || !require("node:module").isBuiltin(specifier)) return null;
  const mod = require(specifier);
  return Promise.resolve({ ...mod, default: mod });
}

/**
 * The claim of the daemon that saves the first cache of a build while others start beside it:
 * `<file>.lock`, made exclusively, holding its pid. Without it, every daemon of a fleet that
 * started before the first one was up compiled the image from source (16 of 50 on two cores,
 * ~100 ms of CPU more each: the first start of a new build took ~0.8 s longer, issue 30). With
 * it, one daemon compiles and saves a cache as soon as its code is loaded (before it connects
 * or starts its agent), and the others wait for that cache; the claimant saves a fuller one
 * once up, for the next start.
 */
const claimOf = (file) => `${file}.lock`;
/** How long a daemon waits for another's first cache before compiling from source itself. */
const CLAIM_WAIT_MS = 10_000;
/** How often a waiting daemon looks at the claim. */
const CLAIM_POLL_MS = 5;

/** A claim older than this is a dead claimant's, whatever its pid says now (pids are reused). */
const CLAIM_STALE_MS = 60_000;

/**
 * Whether the claimant of `lock` may still save: true while it holds the claim and runs, false
 * when it is gone without releasing it (killed) or its claim is stale, null once released.
 */
function claimHeld(lock) {
  let text;
  let st;
  try {
    st = fs.lstatSync(lock);
    text = fs.readFileSync(lock, "utf8");
  } catch {
    return null;
  }
  if (Date.now() - st.mtimeMs > CLAIM_STALE_MS) return false;
  // A claim just made has no pid in it yet.
  const pid = Number(text.trim());
  if (!Number.isInteger(pid) || pid <= 0) return true;
  try {
    process.kill(pid, 0); // signal 0: only asks whether the process exists
    return true;
  } catch (err) {
    return err.code === "EPERM";
  }
}

/**
 * Claims the saving of the first cache in `dir` (a private folder of this user, made if need
 * be): true when this process holds the claim now. A claim whose holder is gone is taken over.
 * The claim is released when the process exits, whatever happened before.
 */
function claimCache(dir, file) {
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = fs.lstatSync(dir);
    if (!st.isDirectory() || !ours(st)) return false;
  } catch {
    return false;
  }
  const lock = claimOf(file);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = fs.openSync(lock, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o600);
      try {
        fs.writeSync(fd, `${process.pid}\n`);
      } finally {
        fs.closeSync(fd);
      }
      process.once("exit", () => releaseClaim(lock));
      return true;
    } catch (err) {
      if (err.code !== "EEXIST" || claimHeld(lock) !== false) return false;
      fs.rmSync(lock, { force: true });
    }
  }
  return false;
}

/** Removes the claim if it is still this process's. */
function releaseClaim(lock) {
  try {
    if (Number(fs.readFileSync(lock, "utf8").trim()) === process.pid) fs.rmSync(lock, { force: true });
  } catch {
    /* released already */
  }
}

/**
 * Waits, without running anything else, while another daemon holds the claim (at most
 * {@link CLAIM_WAIT_MS}); how long it waited, and why it stopped.
 */
function waitForClaim(file) {
  const lock = claimOf(file);
  const cell = new Int32Array(new SharedArrayBuffer(4));
  const t0 = Date.now();
  for (;;) {
    const held = claimHeld(lock);
    const waited = Date.now() - t0;
    if (held !== true) return { waited, why: held === false ? "the daemon saving it ended first" : null };
    if (waited >= CLAIM_WAIT_MS) return { waited, why: `the daemon saving it did not within ${CLAIM_WAIT_MS / 1000} s` };
    Atomics.wait(cell, 0, 0, CLAIM_POLL_MS);
  }
}

/** Loads the image, compiled with the code cache when there is one; says how, for the log. */
function loadImage() {
  // One read, as one string (ASCII: esbuild escapes the rest). Node keeps a text this long
  // outside V8's heap, where V8 compiles it as it is. Read 64 KiB at a time, as before, its
  // pieces filled the 2 MiB young generation, were copied out of it by the collector, and then
  // into one flat string for the compiler: ~3 ms more of each daemon's start (issue 30). The
  // whole file's buffer, freed, no longer moves glibc's mmap threshold (daemon-flags.ts
  // DAEMON_GLIBC_TUNABLES fixes it).
  const source = fs.readFileSync(IMAGE, "latin1");
  const build = /^\/\/ culture daemon image ([0-9a-f]+)\n/.exec(source);
  if (!build) throw new Error(`${IMAGE} is not a culture daemon image (its first line names none); rebuild culture (npm run build)`);
  const dir = cacheDir(process.env);
  const file = path.join(dir, `daemon-${build[1]}-${process.version}-${process.arch}.v8cache`);
  let { data, problem, save = true } = readCache(dir, file);
  // No cache yet: the first daemon to claim it compiles and saves one; the others wait for it.
  let claimed = false;
  let waited = null;
  if (!data && problem === "none yet") {
    claimed = claimCache(dir, file);
    if (!claimed) {
      waited = waitForClaim(file);
      ({ data, problem, save = true } = readCache(dir, file));
      if (!data && waited.why) problem = `none yet (${waited.why})`;
    }
  }
  // The file is a function expression (scripts/daemon-image.mjs): compiled as read, no copy.
  const script = new (require("node:vm").Script)(source, { filename: IMAGE, cachedData: data });
  const module = { exports: {}, filename: IMAGE };
  script.runInThisContext().call(module.exports, module.exports, createRequire(IMAGE), module, IMAGE, path.dirname(IMAGE), importFromImage);
  if (data && !script.cachedDataRejected) {
    const after = waited ? `, saved by a daemon that started beside this one (waited ${waited.waited} ms)` : "";
    return { image: module.exports, note: `compiled from the code cache ${file}${after}` };
  }
  const why = data ? "not used: V8 rejected it (made by another build of Node or with other V8 flags)" : problem;
  // Once the daemon is up, V8 has compiled what a start runs: that is what the next start reuses.
  const onReady = save ? () => writeCache(dir, file, script) : undefined;
  // The claimant also saves what its code compiled loading, for the daemons waiting on it.
  const onLoaded = claimed
    ? () => {
        try {
          writeCache(dir, file, script);
        } finally {
          releaseClaim(claimOf(file));
        }
      }
    : undefined;
  const saving = !save ? "" : claimed ? ", saving a new cache once up (and a first one once loaded, for the daemons starting beside it)" : ", saving a new cache once up";
  return { image: module.exports, note: `code cache ${file}: ${why}; compiled from source${saving}`, onLoaded, onReady };
}

/**
 * The V8 flags of a daemon's process, by name: daemon-flags.ts daemonNodeFlags puts each on its
 * command line unless the user set it, and says why each; {@link startupFlags} and
 * daemon-flags.ts endStartupTiering act on them as the daemon starts.
 */
const DAEMON_V8_FLAGS = [
  ["--max-semi-space-size", 2],
  ["--interrupt-budget", 1_000_000],
];
/** `--name=value` of one of {@link DAEMON_V8_FLAGS}, as it stands on the daemon's command line. */
const ourFlag = (name) => `${name}=${new Map(DAEMON_V8_FLAGS).get(name)}`;
/** V8's own default optimization budget in Node 20 (V8 11.3: 66 KiB; later V8s with Maglev use 132 KiB). */
const V8_INTERRUPT_BUDGET = 66 * 1024;

/**
 * V8 flags a daemon sets only while it starts, from {@link startupFlags} until
 * {@link endStartupTiering}, each beside the one that gives V8's default back:
 * - `--regexp-tier-up-ticks=100`: a regular expression runs in V8's regexp interpreter 100 times
 *   before V8 compiles it to machine code, instead of once. Most of those a start runs (the
 *   config's and the schemas' checks, parsing) run a few times, and V8 compiled each twice,
 *   to bytecode and then to machine code (~9 ms of a daemon in a 50-agent fleet, perf). One that
 *   keeps running (an IRC flood's line parser) reaches machine code after its 100th run.
 * - `--no-regexp-peephole-optimization`: nor is their bytecode optimized.
 */
const STARTUP_ONLY_FLAGS = [
  ["--regexp-tier-up-ticks=100", "--regexp-tier-up-ticks=1"],
  ["--no-regexp-peephole-optimization", "--regexp-peephole-optimization"],
];
/** True while this process runs with {@link STARTUP_ONLY_FLAGS}. */
let startingUp = false;

/**
 * The node builtin modules a daemon's start loads, loaded by {@link startupFlags} while Node's
 * code cache for them is usable (daemon-image.test.ts checks that a daemon's start loads no
 * other): the modules, and what they load only when first used (`cluster` by a server's
 * listen).
 */
const STARTUP_BUILTINS = ["net", "child_process", "crypto", "stream", "stream/promises", "stream/web", "readline", "fs/promises", "string_decoder", "diagnostics_channel", "vm", "perf_hooks", "os", "cluster", "process"];

/**
 * Lets V8 use its code caches while a daemon starts. V8 takes cached code (Node's own, built in,
 * for its builtin modules; this image's) only when a hash of every V8 flag not at its default
 * value is the one the code was cached with, and Node's is cached with none: with the daemon's
 * two flags, every builtin module a daemon loaded (net, crypto, child_process, the streams)
 * was compiled from source, ~30 ms of a daemon's start (bench/daemon-start.mjs, issue 30). So,
 * for each of the daemon's own flags (the value the user set is left alone):
 * - `--max-semi-space-size` is read once, when V8 sizes the heap at process start: set back to
 *   V8's default here, the young generation keeps its limit and the hash no longer has it;
 * - the start-up budget is read each time a function's budget runs out: V8's default while the
 *   modules of {@link STARTUP_BUILTINS} load from Node's cache, then the start-up budget again
 *   for the rest of the start (the image's own cache is made and used with it), until
 *   daemon-flags.ts endStartupTiering() gives V8 its default for good once the daemon is up.
 * The flags stay on node's command line, not set here from the start: with V8's default budget
 * for all of Node's own start, TurboFan optimized a path helper before this ran, and its
 * compiler's code, paged in, stayed in the idle daemon's RSS (+3 MiB).
 */
function startupFlags(execArgv = process.execArgv) {
  const v8 = require("node:v8");
  if (execArgv.includes(ourFlag("--max-semi-space-size"))) v8.setFlagsFromString("--max-semi-space-size=0");
  const budget = execArgv.includes(ourFlag("--interrupt-budget"));
  if (budget) v8.setFlagsFromString(`--interrupt-budget=${V8_INTERRUPT_BUDGET}`);
  for (const name of STARTUP_BUILTINS) require(name);
  // Loaded when first used: file streams, rmSync's remover (given a path that cannot exist:
  // procfs has no such entry, and no /proc at all is as good), AbortController, the streams of
  // stdout and stderr (the daemon's logger writes to them).
  void fs.ReadStream;
  fs.rmSync("/proc/self/culture-none", { force: true });
  void globalThis.AbortController;
  void process.stdout;
  void process.stderr;
  // Node makes the error a released stream writer rejects with once per process, and formats
  // its stack as it does (internal/webstreams). Made inside the image (the ACP SDK releases its
  // writer after each message), that meant finding the line ends of the whole 1.4 MB image:
  // ~2 ms of each daemon in a fleet (perf, issue 30). Made here, its frames are this file's.
  new WritableStream().getWriter().releaseLock();
  if (budget) v8.setFlagsFromString(ourFlag("--interrupt-budget"));
  for (const [during] of STARTUP_ONLY_FLAGS) v8.setFlagsFromString(during);
  startingUp = true;
}

/**
 * Called once the daemon is up: V8's usual optimization budget again, if the start-up one is
 * ours (a budget the user chose stays), and V8's defaults for {@link STARTUP_ONLY_FLAGS}. V8
 * reads these each time a function's budget runs out or an expression runs, so from then on hot
 * code tiers up as it does by default.
 */
function endStartupTiering(execArgv = process.execArgv) {
  const v8 = require("node:v8");
  if (execArgv.includes(ourFlag("--interrupt-budget"))) v8.setFlagsFromString(`--interrupt-budget=${V8_INTERRUPT_BUDGET}`);
  if (startingUp) for (const [, after] of STARTUP_ONLY_FLAGS) v8.setFlagsFromString(after);
  startingUp = false;
}

/** Runs `culture start <nick> --foreground` (argv after the script) from the image. */
function runDaemonImage(argv) {
  startupFlags();
  const { image, note, onLoaded, onReady } = loadImage();
  loaded = image;
  // What core's ES module entries (dist/facade/*.js) serve a backend in this process.
  globalThis[Symbol.for("culture.daemon-image")] = { core: (name) => image.coreEntries[name]() };
  const args = image.foregroundArgs(argv);
  if (!args) throw new Error(`bin/daemon-image.cjs runs only \`culture start <nick> --foreground\`, got: ${argv.join(" ")}`);
  return image.runForegroundCommand(args, { note, onLoaded, onReady });
}

/**
 * True when a daemon runs from the image: the install has one (a build from before has none)
 * and CULTURE_NO_DAEMON_IMAGE is not set (then it runs culture's ES modules, as before).
 */
function useDaemonImage(env) {
  return !env.CULTURE_NO_DAEMON_IMAGE && fs.existsSync(IMAGE);
}

module.exports = { runDaemonImage, useDaemonImage, bundledModule, startupFlags, endStartupTiering, DAEMON_V8_FLAGS, STARTUP_BUILTINS };
// `culture start` runs each daemon with this file (daemon-flags.ts daemonScript); should the image
// be unusable by then, the program's own foreground start runs it from culture's ES modules.
if (require.main === module) {
  if (useDaemonImage(process.env)) runDaemonImage(process.argv.slice(2));
  else import("../dist/main.js");
}
