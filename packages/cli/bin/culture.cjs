#!/usr/bin/env node
// The `culture` executable. It is CommonJS on purpose: `culture channel ...` (run by agents on
// every IRC action) then starts without Node's ESM loader and loads one bundled file
// (dist/channel.cjs) with nothing but node builtins. Everything else is the ESM program.
"use strict";
if (process.argv[2] === "channel") {
  const loaded = loadChannel();
  const channel = loaded.exports;
  channel
    // exiting: the process ends below, which closes the IPC connection (see RunChannelOptions).
    .runChannel(process.argv.slice(3), undefined, { exiting: true })
    .then(
      // Exit as soon as the output is written: the agent is waiting for this process to end.
      (code) =>
        channel.outputWritten().then(() => {
          loaded.saveCodeCache();
          process.exit(code);
        }),
      // Exits too: an IPC connection left open (exiting) would keep the process alive.
      (err) => process.stderr.write(`culture channel: unexpected error (this is a bug)\n${err && err.stack ? err.stack : err}\n`, () => process.exit(1)),
    );
} else if (process.argv[2] === "mcp") {
  import("../dist/mcp.js")
    .then((m) => m.runMcp(process.argv.slice(3)))
    .then(
      (code) => {
        process.exitCode = code;
        process.exit();
      },
      (err) => {
        process.stderr.write(`culture mcp: unexpected error (this is a bug)\n${err && err.stack ? err.stack : err}\n`);
        process.exit(1);
      },
    );
} else {
  import("../dist/main.js");
}

/**
 * Loads dist/channel.cjs with a V8 code cache: compiling the file and the functions a call runs
 * is most of what `culture channel` adds to Node's own start (bench/channel-cold-start.mjs).
 * The cache is `<XDG_CACHE_HOME or ~/.cache>/culture/code-cache/channel-<hash>-<node>-<arch>.v8`
 * (folder 0700, file 0600), written after a call that had none or whose cache V8 rejected (a
 * different V8 or flags); it is keyed by the hash the build appends to channel.cjs (its last
 * line), so a new build or another install of culture never runs an old cache (writing one
 * removes the others of this node, which only older builds use). Without a hash
 * line, a HOME or a writable folder, the file is simply compiled. CULTURE_CODE_CACHE=0 turns
 * the cache off.
 * @returns {{ exports: any, saveCodeCache: () => void }} the module's exports, and a function
 *   that writes the cache when it should be written (call it once the command is done: the
 *   cache then holds every function the call compiled).
 */
function loadChannel() {
  const fs = require("fs");
  const vm = require("vm");
  const dirname = require("path").join(__dirname, "..", "dist");
  const filename = `${dirname}/channel.cjs`;
  const source = fs.readFileSync(filename, "utf8");
  const cacheFile = codeCacheFile(source);
  let cachedData;
  if (cacheFile) {
    try {
      cachedData = fs.readFileSync(cacheFile);
    } catch {
      // No cache yet (or unreadable): compile, and write one after the call.
    }
  }
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename, cachedData });
  const module = { exports: {} };
  script.runInThisContext().call(module.exports, module.exports, require, module, filename, dirname);
  const stale = cacheFile !== null && (cachedData === undefined || script.cachedDataRejected === true);
  return { exports: module.exports, saveCodeCache: () => stale && writeCodeCache(fs, cacheFile, script) };
}

/** The cache file for this build of channel.cjs, or null (no hash line, no cache folder, or turned off). */
function codeCacheFile(source) {
  if (process.env.CULTURE_CODE_CACHE === "0") return null;
  const hash = /\n\/\/ culture-channel-hash: ([0-9a-f]{16,64})\n?$/.exec(source.slice(-100));
  const xdg = process.env.XDG_CACHE_HOME;
  const base = xdg && xdg.startsWith("/") ? xdg : process.env.HOME ? `${process.env.HOME}/.cache` : null;
  if (!hash || !base) return null;
  return `${base}/culture/code-cache/channel-${hash[1]}-${process.version}-${process.arch}.v8`;
}

/** Writes the cache atomically (a temporary file renamed over it); any failure leaves the call uncached. */
function writeCodeCache(fs, file, script) {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.mkdirSync(file.slice(0, file.lastIndexOf("/")), { recursive: true, mode: 0o700 });
    const fd = fs.openSync(tmp, "wx", 0o600); // opened before the cache is serialized: a read-only folder costs nothing more
    try {
      fs.writeSync(fd, script.createCachedData());
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
    pruneCodeCaches(fs, file);
  } catch {
    try {
      fs.unlinkSync(tmp);
    } catch {
      // Never created.
    }
  }
}

/** Removes the caches of other builds of channel.cjs for this node (upgrades would pile them up). */
function pruneCodeCaches(fs, kept) {
  const dir = kept.slice(0, kept.lastIndexOf("/"));
  const suffix = `-${process.version}-${process.arch}.v8`;
  for (const name of fs.readdirSync(dir)) {
    if (name.startsWith("channel-") && name.endsWith(suffix) && `${dir}/${name}` !== kept) fs.rmSync(`${dir}/${name}`, { force: true });
  }
}
