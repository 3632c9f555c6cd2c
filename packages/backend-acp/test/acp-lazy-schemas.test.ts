/**
 * scripts/acp-lazy-schemas.mjs: the bundled ACP SDK builds its zod schemas on first use. The
 * tests run the SDK's real generated schemas both ways (as the package ships them, and as the
 * plugin rewrites them) and compare every schema's verdict on the same messages, valid and not;
 * and check that the built backend and demo agent (npm run build) carry the rewrite.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: a build script in plain JS, without type declarations.
import { lazySchemas } from "../../../scripts/acp-lazy-schemas.mjs";

type Schema = { safeParse(v: unknown): { success: boolean; data?: unknown; error?: { issues: unknown[] } }; _zod: { def: { type: string; _cachedInner?: unknown } } };
type Schemas = Record<string, Schema>;

const require = createRequire(import.meta.url);
const GEN = join(dirname(require.resolve("@agentclientprotocol/sdk")), "..", "schema", "zod.gen.js");
const BUNDLE = fileURLToPath(new URL("../dist/index.js", import.meta.url));
const DEMO_AGENT = fileURLToPath(new URL("../../cli/dist/demo-agent.js", import.meta.url));

let dir: string;
let eager: Schemas;
let lazy: Schemas;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "acp-lazy-"));
  // The rewritten module, importing what the original imports (same zod, same helpers).
  const from = (spec: string) => JSON.stringify(pathToFileURL(createRequire(GEN).resolve(spec)).href);
  const source = lazySchemas(readFileSync(GEN, "utf8"), GEN)
    .replace(/from "\.\.\/\.\.\/core\/schema-deserialize\.js"/, `from ${from("../../core/schema-deserialize.js")}`)
    .replace(/from "zod\/v4"/, `from ${from("zod/v4")}`)
    .replace(/^\/\/# sourceMappingURL=.*$/m, "");
  writeFileSync(join(dir, "zod.gen.lazy.mjs"), source);
  lazy = await import(pathToFileURL(join(dir, "zod.gen.lazy.mjs")).href);
  eager = await import(pathToFileURL(GEN).href);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sid = "sess-1";
const text = { type: "text", text: "hi" };
/** Messages an agent sends (and ones it must not): every schema judges every one of them. */
const MESSAGES: unknown[] = [
  { sessionId: sid, update: { sessionUpdate: "agent_message_chunk", content: text } },
  { sessionId: sid, update: { sessionUpdate: "agent_thought_chunk", content: { type: "image", data: "AA==", mimeType: "image/png" } } },
  { sessionId: sid, update: { sessionUpdate: "user_message_chunk", content: { type: "resource_link", uri: "file:///a", name: "a" } } },
  { sessionId: sid, update: { sessionUpdate: "tool_call", toolCallId: "t1", title: "Read a", kind: "read", status: "pending", locations: [{ path: "/a", line: 3 }] } },
  { sessionId: sid, update: { sessionUpdate: "tool_call", toolCallId: "t1", title: "Edit", content: [{ type: "diff", path: "/a", oldText: "x", newText: "y" }, { type: "nonsense" }] } },
  { sessionId: sid, update: { sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed", kind: 42, content: [{ type: "content", content: text }] } },
  { sessionId: sid, update: { sessionUpdate: "plan", entries: [{ content: "step", priority: "high", status: "pending" }] } },
  { sessionId: sid, update: { sessionUpdate: "available_commands_update", availableCommands: [{ name: "web", description: "search", input: { hint: "q" } }] } },
  { sessionId: sid, update: { sessionUpdate: "current_mode_update", currentModeId: "code" } },
  { sessionId: sid, update: { sessionUpdate: "usage_update", used: 10, size: 100 } },
  { sessionId: sid, update: { sessionUpdate: "session_info_update", title: "t", _meta: "not a record" } },
  { sessionId: sid, update: { sessionUpdate: "something_new", whatever: 1 } },
  { sessionId: sid, update: { sessionUpdate: "tool_call" } },
  { sessionId: 7, update: { sessionUpdate: "agent_message_chunk", content: text } },
  { update: { sessionUpdate: "agent_message_chunk", content: text } },
  {
    sessionId: sid,
    toolCall: { toolCallId: "t1", title: "rm -rf /", kind: "execute", rawInput: { command: "rm -rf /" } },
    options: [{ optionId: "a", name: "Allow", kind: "allow_once" }, { optionId: "r", name: "Reject", kind: "reject_once" }],
  },
  { sessionId: sid, toolCall: { toolCallId: "t1" }, options: [{ optionId: "a", name: "Allow", kind: "maybe" }] },
  { sessionId: sid, path: "/a/b.txt", line: 2, limit: 10 },
  { sessionId: sid, path: "/a/b.txt", content: "hello" },
  { sessionId: sid, path: "/a/b.txt", line: 1.5, limit: "10" },
  { sessionId: sid, command: "ls", args: ["-l"], env: [{ name: "A", value: "1" }], outputByteLimit: 100 },
  { protocolVersion: 1, agentCapabilities: { loadSession: true, promptCapabilities: { image: true } }, authMethods: [{ id: "x", name: "X" }] },
  { sessionId: sid, modes: { currentModeId: "a", availableModes: [{ id: "a", name: "A" }] }, configOptions: null },
  { stopReason: "end_turn", usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 } },
  { stopReason: "sideways" },
  { outcome: { outcome: "selected", optionId: "a" } },
  { outcome: { outcome: "cancelled" } },
  { sessionId: sid, prompt: [text, { type: "resource", resource: { uri: "file:///a", text: "x" } }] },
  {},
  { _meta: { a: 1 } },
  null,
  undefined,
  "text",
  42,
  [text],
];

const verdict = (schema: Schema, input: unknown) => {
  const r = schema.safeParse(structuredClone(input));
  return r.success ? { ok: true, data: r.data } : { ok: false, issues: r.error!.issues };
};

describe("the ACP SDK's schemas, built on first use (scripts/acp-lazy-schemas.mjs)", () => {
  it("are all lazy, and none is built until something parses with it", () => {
    const names = Object.keys(eager);
    expect(names.length).toBeGreaterThan(100);
    expect(Object.keys(lazy).sort()).toEqual([...names].sort());
    for (const name of names) {
      expect(lazy[name]!._zod.def.type, name).toBe("lazy");
      expect(lazy[name]!._zod.def._cachedInner, name).toBeUndefined();
    }
    lazy.zSessionNotification!.safeParse(MESSAGES[0]);
    expect(lazy.zSessionNotification!._zod.def._cachedInner).toBeDefined();
  });

  it("judge every message exactly as the SDK's own schemas do: the same data, the same issues", () => {
    let accepted = 0;
    for (const name of Object.keys(eager)) {
      for (const message of MESSAGES) {
        const want = verdict(eager[name]!, message);
        expect(verdict(lazy[name]!, message), `${name} on ${JSON.stringify(message)}`).toEqual(want);
        if (want.ok) accepted++;
      }
    }
    // Both kinds are exercised: messages some schemas accept and messages they refuse.
    expect(accepted).toBeGreaterThan(100);
  });

  it("refuses a zod.gen.js of another shape rather than bundle it half-rewritten", () => {
    const head = 'import * as z from "zod/v4";\n';
    expect(lazySchemas(`${head}export const zA = z.string();\n`)).toContain("z.lazy(() => z.string())");
    expect(() => lazySchemas(`${head}const helper = z.string();\nexport const zA = helper;\n`)).toThrow(/other than `export const zX/);
    expect(() => lazySchemas(`${head}export function zA() {}\n`)).toThrow(/other than `export const zX/);
    expect(() => lazySchemas(`${head}export const zA = z.string(), zB = z.number();\n`)).toThrow(/other than `export const zX/);
    expect(() => lazySchemas(`${head}export const notASchema = 1;\n`)).toThrow(/other than a zod schema/);
    expect(() => lazySchemas(`import { z } from "zod";\nexport const zA = z.string();\n`)).toThrow(/no longer imports zod/);
    expect(() => lazySchemas(head)).toThrow(/exports no schemas/);
  });

  it("is what the built backend and demo agent bundle (npm run build first)", () => {
    for (const file of [BUNDLE, DEMO_AGENT]) {
      const bundle = readFileSync(file, "utf8");
      expect(bundle, file).toMatch(/zSessionNotification\s*=\s*(\/\* @__PURE__ \*\/\s*)?(\w+\.)?lazy\(\(\)\s*=>/);
      expect(bundle, file).not.toMatch(/zSessionNotification\s*=\s*(\w+\.)?object\(/);
    }
  });
});
