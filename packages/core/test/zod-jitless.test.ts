/**
 * Core's bundled zod compiles no parsers at run time (scripts/zod-jitless.mjs, issue 30): a
 * fresh node loads the build (npm run build first) as a daemon does, loads a config and parses
 * with an object schema of its own, and counts every `new Function`. In a child process, as
 * zod's settings are per process and this one already has zod (vitest runs core's sources).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

const dist = fileURLToPath(new URL("../dist/", import.meta.url));

describe.skipIf(!existsSync(join(dist, "index.js")))("core's bundled zod", () => {
  it("starts jitless: loading a config and parsing objects compiles nothing", () => {
    const dir = mkdtempSync(join(tmpdir(), "zod-jitless-"));
    try {
      const config = join(dir, "agents.yaml");
      writeFileSync(config, "server: { name: spark, port: 6667 }\nagents:\n  - nick: spark-a\n    agent: acp\n    channels: ['#x']\n");
      const probe = `
        let compiled = 0;
        const F = Function;
        globalThis.Function = new Proxy(F, { construct(target, args) { compiled++; return Reflect.construct(target, args); } });
        const { loadConfig } = await import(${JSON.stringify(pathToFileURL(join(dist, "config.js")).href)});
        const { z } = await import(${JSON.stringify(pathToFileURL(join(dist, "zod.js")).href)});
        const loaded = await loadConfig({ configPath: ${JSON.stringify(config)}, cwd: ${JSON.stringify(dir)} });
        const schema = z.object({ a: z.string(), b: z.object({ c: z.number().optional() }) });
        const parsed = [1, 2, 3].map(() => schema.safeParse({ a: "x", b: { c: 1 }, extra: true }));
        const refused = schema.safeParse({ a: 1, b: {} });
        console.log(JSON.stringify({ jitless: z.config().jitless, compiled, nick: loaded.agents[0].nick, data: parsed[2].data, issues: refused.error.issues.map((i) => i.path.join(".") + ":" + i.code) }));
      `;
      const out = execFileSync(process.execPath, ["--input-type=module", "-e", probe], { encoding: "utf8", env: { PATH: process.env.PATH ?? "" } });
      expect(JSON.parse(out.trim().split("\n").pop()!)).toEqual({
        jitless: true,
        compiled: 0,
        nick: "spark-a",
        data: { a: "x", b: { c: 1 } },
        issues: ["a:invalid_type"],
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
