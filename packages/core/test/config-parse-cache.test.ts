/**
 * parse-cache.ts: a config file's parsed YAML, kept by content in `$CULTURE_HOME/cache` so the
 * daemons of a fleet do not each parse the same agents.yaml. What it must never do: give the
 * data of another text, trust a file someone else could have written, or lose a line number.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as yaml from "yaml";
import { loadConfig } from "../src/config/load-config.js";
import { keepsExactly, PARSE_CACHE_FORMAT, parseCacheDir, parseWithCache } from "../src/config/parse-cache.js";
import { CultureError } from "../src/errors.js";

// yaml's parseDocument, counted: a config served from its kept parse must not parse the YAML.
vi.mock("yaml", async (actual) => {
  const real = await actual<typeof import("yaml")>();
  return { ...real, parseDocument: vi.fn(real.parseDocument) };
});

let root: string;
let env: NodeJS.ProcessEnv;
let cache: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "culture-parse-cache-"));
  env = { CULTURE_HOME: join(root, "home") };
  mkdirSync(env.CULTURE_HOME!);
  cache = parseCacheDir(env);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const kept = () => readdirSync(cache).filter((f) => f.startsWith("config-"));
/** A parser that counts its calls. */
function counting(result: (text: string) => unknown = (t) => ({ text: t })) {
  const calls: string[] = [];
  return { calls, parse: (text: string) => (calls.push(text), result(text)) };
}

describe("parseWithCache", () => {
  it("parses a text once; the next process gets the same data from a 0600 file in a 0700 folder", () => {
    const p = counting();
    expect(parseWithCache("a: 1\n", env, p.parse)).toEqual({ text: "a: 1\n" });
    expect(parseWithCache("a: 1\n", env, p.parse)).toEqual({ text: "a: 1\n" });
    expect(p.calls).toEqual(["a: 1\n"]);
    expect(kept()).toHaveLength(1);
    expect(statSync(cache).mode & 0o777).toBe(0o700);
    expect(statSync(join(cache, kept()[0]!)).mode & 0o777).toBe(0o600);
    // Another text (one character more) is parsed, never served the first one's data.
    expect(parseWithCache("a: 1\n\n", env, p.parse)).toEqual({ text: "a: 1\n\n" });
    expect(p.calls).toHaveLength(2);
  });

  it("names each file after the text and the parser's version: a forged file under another name is never read", () => {
    const p = counting();
    parseWithCache("a: 1\n", env, p.parse);
    const [name] = kept();
    // The same bytes under the name another text would have: that text is still parsed.
    writeFileSync(join(cache, "config-" + "0".repeat(64) + ".json"), readFileSync(join(cache, name!)), { mode: 0o600 });
    expect(parseWithCache("b: 2\n", env, p.parse)).toEqual({ text: "b: 2\n" });
    // A file whose recorded key is not its name's: parsed again, and replaced.
    const file = join(cache, name!);
    writeFileSync(file, JSON.stringify({ key: "f".repeat(64), data: { forged: true } }), { mode: 0o600 });
    expect(parseWithCache("a: 1\n", env, p.parse)).toEqual({ text: "a: 1\n" });
    expect(JSON.parse(readFileSync(file, "utf8")).data).toEqual({ text: "a: 1\n" });
  });

  it("ignores a kept file that others may write or that is a symlink, and a folder that others may enter", () => {
    const p = counting();
    parseWithCache("a: 1\n", env, p.parse);
    const file = join(cache, kept()[0]!);
    const forged = JSON.stringify({ key: JSON.parse(readFileSync(file, "utf8")).key, data: { forged: true } });
    writeFileSync(file, forged);
    chmodSync(file, 0o666);
    expect(parseWithCache("a: 1\n", env, p.parse)).toEqual({ text: "a: 1\n" });
    // A symlink to a forged file of ours: not followed.
    const elsewhere = join(root, "elsewhere.json");
    writeFileSync(elsewhere, forged, { mode: 0o600 });
    rmSync(file);
    symlinkSync(elsewhere, file);
    expect(parseWithCache("a: 1\n", env, p.parse)).toEqual({ text: "a: 1\n" });
    // A good file in a folder others may write: not used (and nothing is written there).
    rmSync(file);
    writeFileSync(file, forged, { mode: 0o600 });
    chmodSync(cache, 0o777);
    expect(parseWithCache("a: 1\n", env, p.parse)).toEqual({ text: "a: 1\n" });
    expect(readFileSync(file, "utf8")).toBe(forged);
    expect(p.calls).toHaveLength(4);
  });

  it("keeps only what JSON gives back exactly, and nothing for a text that does not parse", () => {
    expect(parseWithCache("x", env, () => ({ a: Infinity }))).toEqual({ a: Infinity });
    expect(parseWithCache("y", env, () => JSON.parse('{"__proto__": {"polluted": 1}}'))).toHaveProperty("__proto__");
    expect(() => parseWithCache("z", env, () => {
      throw new Error("bad YAML");
    })).toThrow("bad YAML");
    expect(() => readdirSync(cache)).toThrow(); // nothing was kept: the folder was never made
    for (const bad of [NaN, -0, undefined, new Date(0), new Map(), [1, () => 0], Object.create(null)]) expect(keepsExactly(bad)).toBe(false);
    expect(keepsExactly({ a: [1, "x", null, true, { b: 0 }] })).toBe(true);
  });

  it("makes no $CULTURE_HOME: where there is none, nothing is kept", () => {
    const p = counting();
    const elsewhere = { CULTURE_HOME: join(root, "no-home") };
    parseWithCache("a: 1\n", elsewhere, p.parse);
    parseWithCache("a: 1\n", elsewhere, p.parse);
    expect(p.calls).toHaveLength(2);
    expect(existsSync(elsewhere.CULTURE_HOME)).toBe(false);
  });

  it("keeps the newest few", () => {
    for (let i = 0; i < 12; i++) parseWithCache(`n: ${i}\n`, env, (t) => t);
    expect(kept().length).toBeLessThanOrEqual(8);
  });

  it("is keyed to the yaml version core pins (update PARSE_CACHE_FORMAT with it)", () => {
    const pkg = createRequire(import.meta.url)("../package.json") as { devDependencies: Record<string, string> };
    expect(PARSE_CACHE_FORMAT).toContain(`yaml ${pkg.devDependencies.yaml}`);
  });
});

describe("loadConfig with a kept parse", () => {
  it("gives the same config, and the same line numbers in its errors, from the kept parse as from the YAML", async () => {
    const file = join(root, "agents.yaml");
    const good = "server: { name: spark, port: 6667 }\nagents:\n  - nick: spark-a\n    channels: ['#general']\n";
    writeFileSync(file, good);
    const first = await loadConfig({ configPath: file, env });
    expect(kept()).toHaveLength(1);
    const second = await loadConfig({ configPath: file, env });
    expect(second).toEqual(first);
    // The kept parse is what a load uses (a file of this user, 0600: trusted as the code cache is).
    const keptFile = join(cache, kept()[0]!);
    const original = readFileSync(keptFile, "utf8");
    const record = JSON.parse(original) as { key: string; data: { agents: { nick: string }[] } };
    record.data.agents[0]!.nick = "spark-kept";
    writeFileSync(keptFile, JSON.stringify(record), { mode: 0o600 });
    expect((await loadConfig({ configPath: file, env })).agents[0]?.nick).toBe("spark-kept");
    writeFileSync(keptFile, original, { mode: 0o600 });

    const bad = "agents:\n  - nick: spark-a\n    thinking: hihg\n";
    writeFileSync(file, bad);
    const message = async () => {
      try {
        await loadConfig({ configPath: file, env });
      } catch (err) {
        expect(err).toBeInstanceOf(CultureError);
        return (err as CultureError).message;
      }
      throw new Error("loaded");
    };
    const parsed = await message();
    expect(kept()).toHaveLength(2);
    expect(await message()).toBe(parsed); // from the kept parse
    expect(parsed).toContain(`agents[0].thinking: expected one of none, low, medium, high, max, got "hihg" (did you mean "high"?) (line 3)`);
  });

  it("parses no YAML for a good config it has kept, even with many agents (a fleet's daemons each load it)", async () => {
    const file = join(root, "agents.yaml");
    const agents = Array.from({ length: 20 }, (_, i) => `  - nick: spark-a${i}\n    channels: ['#general']\n`).join("");
    writeFileSync(file, `server: { name: spark, port: 6667 }\nagents:\n${agents}`);
    await loadConfig({ configPath: file, env });
    const parses = vi.mocked(yaml.parseDocument);
    parses.mockClear();
    expect((await loadConfig({ configPath: file, env })).agents).toHaveLength(20);
    expect(parses).not.toHaveBeenCalled();
    // A problem still gets its line, from the YAML parsed then.
    writeFileSync(file, `server: { name: spark, port: 6667 }\nagents:\n${agents}  - nick: spark-a3\n`);
    await loadConfig({ configPath: file, env }).catch(() => undefined);
    parses.mockClear();
    await expect(loadConfig({ configPath: file, env })).rejects.toThrow(/duplicate nick "spark-a3".*\(line 43\)/);
    expect(parses).toHaveBeenCalled();
  });

  it("still reports a YAML syntax error with its line, every time", async () => {
    const file = join(root, "agents.yaml");
    writeFileSync(file, "agents:\n  - nick: spark-a\n   bad: [\n");
    for (let i = 0; i < 2; i++) await expect(loadConfig({ configPath: file, env })).rejects.toThrow(/YAML syntax error: .*line \d+/);
    mkdirSync(cache, { recursive: true });
    expect(kept()).toEqual([]);
  });
});
