/**
 * scripts/lazy-acp-schemas.mjs (the esbuild plugin that builds the ACP SDK's zod schemas when
 * first used, in this backend's bundle): the SDK's schemas bundled with
 * and without it accept and refuse the same messages, with the same data and the same issues.
 */
import { build } from "esbuild";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs build script without type declarations
import { lazyAcpSchemas, lazySchemaSource } from "../../../scripts/lazy-acp-schemas.mjs";

type Schema = { safeParse(v: unknown): { success: boolean; data?: unknown; error?: { issues: unknown[] } } };
type Schemas = Record<string, Schema>;

// The schemas the SDK's stable entry (dist/v1/stable/acp.js, what the backend imports) validates with.
const GENERATED = join(dirname(createRequire(import.meta.url).resolve("@agentclientprotocol/sdk")), "../schema/zod.gen.js");

let dir: string;
let plain: Schemas;
let lazy: Schemas;

/** The SDK's stable v1 schemas bundled as the backend bundles them, with or without the plugin. */
async function bundle(name: string, plugins: unknown[]): Promise<Schemas> {
  const outfile = join(dir, `${name}.mjs`);
  await build({
    stdin: { contents: `export * from ${JSON.stringify(GENERATED)};`, resolveDir: dir, loader: "js" },
    bundle: true,
    format: "esm",
    platform: "node",
    outfile,
    logLevel: "silent",
    // zod stays a package (it is not what differs), which keeps the two builds quick.
    external: ["zod", "zod/*"],
    plugins: plugins as never,
  });
  return (await import(pathToFileURL(outfile).href)) as Schemas;
}

beforeAll(async () => {
  // Under node_modules, so that the bundles' `import "zod/v4"` finds the package.
  const cache = fileURLToPath(new URL("../../../node_modules/.cache/", import.meta.url));
  mkdirSync(cache, { recursive: true });
  dir = mkdtempSync(join(cache, "lazy-acp-schemas-"));
  plain = await bundle("plain", []);
  lazy = await bundle("lazy", [lazyAcpSchemas]);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Messages as agents and clients send them (ACP v1), each also mutated below.
const text = { type: "text", text: "hello" };
const samples: unknown[] = [
  { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true }, clientInfo: { name: "culture", version: "1.0.0" } },
  { protocolVersion: 1, agentCapabilities: { loadSession: true, promptCapabilities: { image: true } }, authMethods: [{ id: "login", name: "Log in" }], agentInfo: { name: "a", version: "1" } },
  { cwd: "/tmp", mcpServers: [{ name: "irc", command: "node", args: ["x.js"], env: [{ name: "A", value: "b" }] }] },
  { sessionId: "s1" },
  { sessionId: "s1", prompt: [text, { type: "image", data: "AAAA", mimeType: "image/png" }, { type: "resource_link", uri: "file:///a", name: "a" }] },
  { sessionId: "s1", prompt: [{ type: "resource", resource: { uri: "file:///a", text: "x", mimeType: "text/plain" } }] },
  { sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: text } },
  { sessionId: "s1", update: { sessionUpdate: "tool_call", toolCallId: "t1", title: "run", kind: "execute", status: "pending", rawInput: { command: ["ls"] } } },
  { sessionId: "s1", update: { sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed", content: [{ type: "content", content: text }] } },
  { sessionId: "s1", update: { sessionUpdate: "plan", entries: [{ content: "do", priority: "high", status: "pending" }] } },
  { sessionId: "s1", update: { sessionUpdate: "available_commands_update", availableCommands: [{ name: "web", description: "search" }] } },
  { sessionId: "s1", update: { sessionUpdate: "current_mode_update", currentModeId: "code" } },
  { sessionId: "s1", update: { sessionUpdate: "no_such_update", x: 1 } },
  { sessionId: "s1", toolCall: { toolCallId: "t1", title: "write" }, options: [{ optionId: "ok", name: "Allow", kind: "allow_once" }] },
  { sessionId: "s1", path: "/a", content: "x" },
  { sessionId: "s1", command: "ls", args: ["-l"], outputByteLimit: 1000 },
  { stopReason: "end_turn", _meta: { a: 1 } },
  { outcome: { outcome: "selected", optionId: "ok" } },
  { methodId: "login" },
  { sessionId: "s1", modeId: "code" },
  { sessionId: "s1", configId: "model", value: "fast" },
];

/** Each sample, each sample less one key, and with one key null, a number or a string. */
function inputs(): unknown[] {
  const out: unknown[] = [undefined, null, {}, [], "s1", 0, 1.5, true];
  for (const s of samples) {
    out.push(s);
    for (const key of Object.keys(s as object)) {
      const { [key]: _, ...rest } = s as Record<string, unknown>;
      out.push(rest, { ...rest, [key]: null }, { ...rest, [key]: 7 }, { ...rest, [key]: "x" });
    }
  }
  return out;
}

const outcome = (schema: Schema, input: unknown) => {
  const r = schema.safeParse(structuredClone(input));
  return JSON.stringify(r.success ? { ok: r.data } : { issues: r.error!.issues });
};

describe("lazy ACP schemas", () => {
  it("keeps every schema the SDK exports", () => {
    expect(Object.keys(lazy).sort()).toEqual(Object.keys(plain).sort());
    expect(Object.keys(plain).length).toBeGreaterThan(100);
  });

  it("accept and refuse every message as the SDK's own schemas do (same data, same issues)", () => {
    const all = inputs();
    let accepted = 0;
    const differ: string[] = [];
    for (const name of Object.keys(plain)) {
      for (const input of all) {
        const want = outcome(plain[name]!, input);
        if (want.startsWith('{"ok"')) accepted++;
        const got = outcome(lazy[name]!, input);
        if (got !== want) differ.push(`${name} on ${JSON.stringify(input)}: ${got} instead of ${want}`);
      }
    }
    expect(differ.slice(0, 5)).toEqual([]);
    // The samples reach real schemas, not only refusals.
    expect(accepted).toBeGreaterThan(500);
  });

  it("fails the build, naming the file, when the generated file is not the shape it knows", () => {
    const source = readFileSync(GENERATED, "utf8");
    expect(() => lazySchemaSource(source.replace('import * as z from "zod/v4";', 'import { z } from "zod";'), "x.js")).toThrow(/x\.js: no `import \* as z/);
    expect(() => lazySchemaSource(`${source}\nfunction extra() {}\n`, "x.js")).toThrow(/x\.js:\d+: unexpected top-level statement/);
    expect(() => lazySchemaSource(`${source}\nexport const zOpen = z.object({\n`, "x.js")).toThrow(/x\.js:\d+: a schema that never ends/);
  });

  it("is what the built backend carries (npm run build first)", () => {
    const built = [new URL("../dist/index.js", import.meta.url)];
    for (const url of built) {
      const bundle = readFileSync(url, "utf8");
      for (const name of ["zInitializeRequest", "zSessionNotification"]) {
        expect(bundle, `${url.pathname}: ${name}`).toMatch(new RegExp(`${name}\\s*=\\s*(/\\* @__PURE__ \\*/\\s*)?(\\w+\\.)?lazy\\(\\(\\)\\s*=>`));
        expect(bundle, `${url.pathname}: ${name}`).not.toMatch(new RegExp(`${name}\\s*=\\s*(\\w+\\.)?object\\(`));
      }
    }
  });
});
