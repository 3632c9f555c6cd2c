/**
 * What a daemon process loads from the build (npm run build first), kept lean for memory
 * (issue 30; bench/daemon-idle.mjs measures it):
 * - every file in core's dist/ is Latin-1 text: V8 keeps each module's source for as long as
 *   the process lives, one byte a character, but two for the whole file if a single character
 *   is above U+00FF (one dash in a comment doubled the 1.8 MB chunk);
 * - what @culture/core loads when imported holds neither the bash parser (loaded with the first
 *   shell command), nor iconv-lite's code tables, nor the socks client, nor lodash, nor
 *   grapheme-splitter's Unicode tables (irc-framework gets small stand-ins for all four);
 * - core's bundled zod leaves out its 62 non-English locales and fromJSONSchema (each a function
 *   that says so when called), and keeps English messages and toJSONSchema (the MCP SDK needs it);
 * - the built-in backends take zod from @culture/core/zod, never the zod package (~100 ES
 *   modules), so a daemon holds one bundled copy;
 * - core bundles tapable, and execa (with its dependencies, ~135 ES modules as packages); the built-in
 *   backends take it from @culture/core/execa, so a daemon loads one bundled copy of it too;
 * - nor the daemon's parts a default config does not use (budget engine, schedules and
 *   triggers, activity mirror, the sandbox's code): one chunk (daemon/lazy-modules.ts), imported when the
 *   config uses it or an operator first asks (daemon/lazy-part.ts). The CLI and every backend
 *   import the barrel, so what it reaches is what every daemon process loads;
 * - `culture start`'s parent imports @culture/core/config, which holds none of the daemon or IRC
 *   code and shares its modules with the barrel;
 * - and the lazily loaded bash parser still loads from the build (its chunk finds its .wasm).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

const packages = fileURLToPath(new URL("../../", import.meta.url));
const dist = join(packages, "core/dist");

/** Every file reached by static imports from `entry` (relative imports only: core's own chunks). */
function staticGraph(entry: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    // `import ... from "./x.js"` and `import "./x.js"`, minified or not; import("./x.js") is lazy and not followed.
    for (const m of text.matchAll(/(?:\bfrom|\bimport)\s*["'](\.\.?\/[^"']+)["']/g)) visit(join(dirname(file), m[1]!));
  };
  visit(entry);
  return [...seen];
}

describe.skipIf(!existsSync(join(dist, "index.js")))("core's build, as a daemon loads it", () => {
  it("every JavaScript file is Latin-1, so V8 keeps its source one byte a character", () => {
    const wide: string[] = [];
    for (const name of readdirSync(dist, { recursive: true }) as string[]) {
      if (!name.endsWith(".js")) continue;
      const text = readFileSync(join(dist, name), "utf8");
      const i = [...text].findIndex((c) => c.codePointAt(0)! > 0xff);
      if (i >= 0) wide.push(`${name}: ${JSON.stringify([...text].slice(Math.max(0, i - 40), i + 5).join(""))}`);
    }
    expect(wide).toEqual([]);
  });

  it("importing @culture/core loads neither the bash parser, nor iconv-lite's tables, nor socks, nor lodash, nor grapheme-splitter", () => {
    const loaded = staticGraph(join(dist, "index.js")).map((f) => readFileSync(f, "utf8")).join("\n");
    expect(loaded).toContain("SOCKS proxies are not supported"); // the stand-in is what is there
    expect(loaded).toContain("Intl.Segmenter"); // the grapheme splitter's stand-in
    // Strings found only in those libraries' code (web-tree-sitter, iconv-lite, socks, ip-address,
    // lodash's internals, grapheme-splitter's tables).
    const markers = ["ts_parser_new", "Incompatible language version", "Iconv-lite warning", "big5hkscs", "SocksClientError", "Address6"];
    for (const marker of [...markers, "__lodash_hash_undefined__", "[object Arguments]", "getGraphemeBreakProperty"]) {
      expect(loaded.includes(marker) ? marker : null).toBeNull();
    }
  });

  it("core's zod holds English messages and toJSONSchema, not the other locales nor fromJSONSchema", async () => {
    const loaded = staticGraph(join(dist, "zod.js")).map((f) => readFileSync(f, "utf8")).join("\n");
    expect(loaded).toContain("Invalid input: expected");
    for (const marker of ["Ungültige Eingabe", "Entrada inválida", "External $ref is not supported"]) expect(loaded.includes(marker) ? marker : null).toBeNull();
    const { z } = (await import(pathToFileURL(join(dist, "zod.js")).href)) as typeof import("../src/zod.js");
    expect(z.string().safeParse(3).error?.issues[0]?.message).toBe("Invalid input: expected string, received number");
    expect(z.toJSONSchema(z.object({ n: z.number().int().min(1).describe("how many") }))).toMatchObject({ properties: { n: { type: "integer", minimum: 1, description: "how many" } }, required: ["n"] });
    expect(z.locales.en().localeError).toBeTypeOf("function");
    expect(() => z.locales.de()).toThrow(/bundled zod \(@culture\/core\/zod\) leaves out zod's "de" locale/);
    expect(() => z.core.locales.fr()).toThrow(/"fr" locale/);
    expect(() => z.fromJSONSchema({ type: "string" })).toThrow(/leaves out z\.fromJSONSchema.*from "zod" instead/);
  });

  it("importing @culture/core loads none of the daemon parts a default config does not use", () => {
    const loaded = staticGraph(join(dist, "index.js")).map((f) => readFileSync(f, "utf8")).join("\n");
    const everything = (readdirSync(dist, { recursive: true }) as string[]).filter((n) => n.endsWith(".js")).map((n) => readFileSync(join(dist, n), "utf8")).join("\n");
    // Strings found only in each part's code: the budget engine, the schedules, the mirror, the sandbox (bwrap, egress proxy).
    const markers = {
      budget: "budget totals rebuilt from the usage journal",
      schedules: "is already waiting for the agent; not queueing a second",
      mirror: "ActivityMirrorPlugin",
      sandbox: "not a model API origin of this agent",
    };
    for (const [part, marker] of Object.entries(markers)) {
      expect(everything.includes(marker) ? part : null, `${part} is built`).toBe(part);
      expect(loaded.includes(marker) ? part : null, `${part} is loaded by the import`).toBeNull();
    }
  });

  it("the built-in backends import zod from @culture/core/zod, never the zod package", () => {
    for (const backend of ["backend-acp", "backend-claude", "backend-codex", "backend-copilot"]) {
      const file = join(packages, backend, "dist/index.js");
      if (!existsSync(file)) continue;
      const text = readFileSync(file, "utf8");
      expect(text.match(/from\s*["']zod(\/[^"']*)?["']/g), backend).toBeNull();
      expect(text, backend).toContain('"@culture/core/zod"');
      // and execa from @culture/core/execa (the backends that start processes: claude, codex)
      expect(text.match(/from\s*["']execa["']/g), backend).toBeNull();
    }
    expect(readFileSync(join(packages, "backend-claude/dist/index.js"), "utf8")).toContain('"@culture/core/execa"');
  });

  it("core loads execa and tapable from its own bundle, not their packages, and execa runs", async () => {
    const files = [...staticGraph(join(dist, "index.js")), ...staticGraph(join(dist, "execa.js"))];
    for (const file of files) expect(readFileSync(file, "utf8").match(/(?:from|import)\s*["'](execa|tapable)["']/g), file).toBeNull();
    // A daemon does not load execa at all: its agent is spawned with child_process (agent-process.ts);
    // execa loads when an evaluator command or `npm root -g` first runs.
    const daemon = staticGraph(join(dist, "index.js")).map((f) => readFileSync(f, "utf8")).join("\n");
    expect(daemon.includes("execaCoreAsync")).toBe(false);
    expect(staticGraph(join(dist, "execa.js")).some((f) => readFileSync(f, "utf8").includes("execaCoreAsync"))).toBe(true);
    const { execa } = (await import(pathToFileURL(join(dist, "execa.js")).href)) as typeof import("execa");
    const r = await execa(process.execPath, ["-e", "process.stdout.write('ok'); process.exit(3)"], { reject: false });
    expect([r.stdout, r.exitCode]).toEqual(["ok", 3]);
  });

  it("@culture/core/config (what `culture start` loads) holds no daemon, IRC client or logger code, and shares its modules with the barrel", async () => {
    const loaded = staticGraph(join(dist, "config.js")).map((f) => readFileSync(f, "utf8")).join("\n");
    for (const marker of ["createAgentDaemon", "function createLogger", "SOCKS proxies are not supported", "RPL_WELCOME", "Intl.Segmenter"]) {
      expect(loaded.includes(marker) ? marker : null).toBeNull();
    }
    // Well under what the barrel loads (~1.0 MB; the config entry ~0.55 MB, most of it zod and yaml).
    const barrel = staticGraph(join(dist, "index.js")).map((f) => readFileSync(f, "utf8")).join("\n");
    expect(loaded.length).toBeLessThan(barrel.length * 0.6);
    const config = (await import(pathToFileURL(join(dist, "config.js")).href)) as typeof import("../src/config-entry.js");
    const core = (await import(pathToFileURL(join(dist, "index.js")).href)) as typeof import("../src/index.js");
    // One copy of each module in a process that loads both: the same error class, the same function.
    expect(config.CultureError).toBe(core.CultureError);
    expect(config.loadConfig).toBe(core.loadConfig);
  });

  it("the bash parser loads from the build when first needed", async () => {
    const core = (await import(pathToFileURL(join(dist, "index.js")).href)) as typeof import("../src/index.js");
    expect(core.analyzeShellCommand("npm test").argv).toBeNull(); // not loaded by the import
    await core.initShellParser();
    expect(core.analyzeShellCommand("npm test").argv).toEqual(["npm", "test"]);
  });
});
