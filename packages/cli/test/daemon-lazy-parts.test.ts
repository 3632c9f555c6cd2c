/**
 * An idle daemon loads only what its config uses (issue 30, daemon/lazy-part.ts): the real
 * daemon process (`culture start <nick> --foreground`, the built CLI) with a default config
 * (no budget, schedules, mirror or sandbox) on the embedded IRC server, every module it loads
 * recorded by a module loader hook. It does not load the chunk of those parts when it starts;
 * the first `culture schedule list` loads it, and it answers that and `culture budget show` as before.
 * Nor does it touch ICU's time-zone or grapheme data (about 9 MiB of RSS) until a budget counts
 * or a line is long enough to split: a preload records every Intl.DateTimeFormat and Segmenter made.
 * Nor does it load cosmiconfig to read its --config file.
 * A daemon runs from the daemon image (bin/daemon-image.cjs), where every part is in one script
 * and a part's module runs only when first imported: the chunks are checked on the ES modules
 * a daemon runs without it (CULTURE_NO_DAEMON_IMAGE), the rest on both.
 * (A part that fails to load: core/test/lazy-part.test.ts.) Build first (`npm run build`).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type IrcServer } from "@culture/server";
import { MAIN, makeFleet, type Fleet } from "./fleet-harness.js";

const CORE_DIST = fileURLToPath(new URL("../../core/dist/", import.meta.url));

/** The chunk of core's build that holds `marker` (each lazily loaded part is one). */
function chunkWith(marker: string): string {
  const found = readdirSync(CORE_DIST).filter((n) => n.endsWith(".js") && readFileSync(join(CORE_DIST, n), "utf8").includes(marker));
  expect(found, marker).toHaveLength(1);
  return found[0]!;
}

describe.each([
  ["from the daemon image", false],
  ["from its ES modules (CULTURE_NO_DAEMON_IMAGE)", true],
] as const)("a daemon with a default config, %s", (_how, modules) => {
  let server: IrcServer;
  let fleet: Fleet;
  let daemon: ChildProcess | null = null;
  let loadedFile: string;
  let intlFile: string;
  let output = "";

  /** Core's files the daemon has loaded so far, relative to its dist/. */
  function loadedChunks(): string[] {
    if (!existsSync(loadedFile)) return [];
    return readFileSync(loadedFile, "utf8")
      .split("\n")
      .filter((u) => u.startsWith(pathToFileURL(CORE_DIST).href))
      .map((u) => relative(CORE_DIST, fileURLToPath(u)));
  }

  beforeAll(async () => {
    server = await startServer({ port: 0, stateDir: null });
    fleet = makeFleet(server.port, ["spark-lazy"]);
    loadedFile = join(fleet.home, "loaded.txt");
    // Runs in the loader's thread: every module the daemon loads, by URL, one a line.
    const hooks = join(fleet.home, "record-hooks.mjs");
    writeFileSync(hooks, `import { appendFileSync } from "node:fs";\nexport async function load(url, context, next) {\n  appendFileSync(${JSON.stringify(loadedFile)}, url + "\\n");\n  return next(url, context);\n}\n`);
    const register = join(fleet.home, "record.mjs");
    writeFileSync(register, `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
    // Every Intl.DateTimeFormat and Intl.Segmenter the daemon makes, by name, one a line.
    intlFile = join(fleet.home, "intl.txt");
    const intl = join(fleet.home, "record-intl.cjs");
    writeFileSync(
      intl,
      // And every require of croner (the ESM hook above does not see require).
      `const { appendFileSync } = require("node:fs");\nconst Module = require("node:module");\nconst load = Module._load;\nModule._load = function (request, ...rest) {\n  if (request === "croner" || request === "cosmiconfig") appendFileSync(${JSON.stringify(loadedFile)}, "require " + request + "\\n");\n  return load.call(this, request, ...rest);\n};\nfor (const k of ["DateTimeFormat", "Segmenter"]) {\n  const Real = Intl[k];\n  const note = () => appendFileSync(${JSON.stringify(intlFile)}, k + "\\n");\n  Intl[k] = new Proxy(Real, { construct(t, a) { note(); return new t(...a); }, apply(t, self, a) { note(); return t(...a); } });\n}\n`,
    );
    daemon = spawn(process.execPath, ["--require", intl, "--import", pathToFileURL(register).href, MAIN, "start", "spark-lazy", "--foreground", "--config", fleet.configPath], { env: { ...fleet.env, ...(modules ? { CULTURE_NO_DAEMON_IMAGE: "1" } : {}) }, stdio: ["ignore", "pipe", "pipe"] });
    fleet.pids.add(daemon.pid!);
    await new Promise<void>((resolve, reject) => {
      const on = (d: Buffer) => {
        output += d;
        if (/Started spark-lazy/.test(output)) resolve();
      };
      daemon!.stdout!.on("data", on);
      daemon!.stderr!.on("data", on);
      daemon!.on("exit", (code) => reject(new Error(`the daemon exited ${code} before it was up:\n${output}`)));
    });
  });

  afterAll(async () => {
    if (daemon && daemon.exitCode === null) {
      const exited = new Promise((r) => daemon!.once("exit", r));
      daemon.kill("SIGTERM");
      await exited;
    }
    await fleet?.cleanup();
    await server?.close();
  });

    it("loads no part its config does not use; each loads and answers when first asked", async () => {
      expect(output).toMatch(modules ? /^(?![\s\S]*code cache)/ : /code cache/);
      // The budget engine, the schedules, the activity mirror and the sandbox's code: one chunk (daemon/lazy-modules.ts).
      const markers = ["budget totals rebuilt from the usage journal", "is already waiting for the agent; not queueing a second", "ActivityMirrorPlugin", "not a model API origin of this agent"];
      const lazy = chunkWith(markers[0]!);
      for (const m of markers) expect(chunkWith(m)).toBe(lazy);
      const atStart = loadedChunks();
      if (modules) {
        expect(atStart.length).toBeGreaterThan(1); // the hook sees core's chunks
        expect(atStart).not.toContain(lazy);
      } else {
      // The image holds core: what the backend imports is core's facades (dist/facade/), served from it.
      expect(atStart.length).toBeGreaterThan(0);
      expect(atStart.filter((c) => !c.startsWith("facade/"))).toEqual([]);
    }
      // Its --config file is read without cosmiconfig (core's config/config-file.ts), and croner
      // waits for a schedule (config/croner.ts).
      expect(readFileSync(loadedFile, "utf8")).not.toMatch(/\/node_modules\/cosmiconfig\/|require cosmiconfig/);
      expect(readFileSync(loadedFile, "utf8")).not.toMatch(/croner/);
      // Up, asked for its status, and no ICU zone or grapheme data loaded.
      const status = await fleet.culture(["status", "spark-lazy", "--json"]);
      expect(status.code).toBe(0);
      expect(JSON.parse(status.stdout)).toMatchObject([{ nick: "spark-lazy", budget: { time_zone: null } }]);
      expect(existsSync(intlFile) ? readFileSync(intlFile, "utf8") : "").toBe("");
      const list = await fleet.culture(["schedule", "list", "spark-lazy"]);
      expect(list.stderr).toBe("");
      expect(list.code).toBe(0);
      if (modules) expect(loadedChunks()).toContain(lazy);
      expect(readFileSync(loadedFile, "utf8")).not.toMatch(/croner/); // no schedules: the schedules part needs no croner

      // `culture budget show` answers as a daemon without caps does.
      const show = await fleet.culture(["budget", "show", "spark-lazy"]);
      expect(show.stderr).toBe("");
      expect(show.stdout).toMatch(/^spark-lazy has no budget caps \(budget: in agents\.yaml; time zone .+\)\n$/);
      expect(readFileSync(intlFile, "utf8")).toMatch(/DateTimeFormat/); // the recorder sees them
    });
});
