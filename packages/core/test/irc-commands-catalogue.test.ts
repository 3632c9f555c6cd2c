/**
 * The catalogue of the agent's IRC commands (src/irc-commands/): every command is complete,
 * the CLI and MCP forms are derived from it, the IPC access rules answer every catalogue type
 * on the tools socket, docs/irc-tools.md shows the catalogue as it is, and a new command is
 * one definition: nothing else to edit for its CLI form, MCP tool or request schema.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { IRC_COMMANDS } from "../src/irc-commands/catalogue.js";
import { commandHelp, fieldsFromWords, usageOf } from "../src/irc-commands/cli-form.js";
import { defineIrcCommand } from "../src/irc-commands/define.js";
import { fieldsFromMcp, mcpInputShape } from "../src/irc-commands/mcp-form.js";
import { catalogueMarkdown } from "../src/irc-commands/markdown-table.js";
import { TOOLS_IPC_TYPES, isControlType } from "../src/daemon/ipc-access.js";
import { IRC_TOOLS } from "../src/irc-tools/irc-tools.js";

const DOC = fileURLToPath(new URL("../../../docs/irc-tools.md", import.meta.url));

describe("the catalogue of IRC commands", () => {
  it("keeps today's command names, tool names and IPC types", () => {
    expect(IRC_COMMANDS.map((c) => c.name)).toEqual(["send", "read", "ask", "join", "part", "channels", "who", "topic", "compact", "clear", "status"]);
    expect(IRC_TOOLS.map((t) => t.name)).toEqual(IRC_COMMANDS.map((c) => c.name));
    expect([...TOOLS_IPC_TYPES]).toEqual(["irc_send", "irc_read", "irc_ask", "irc_join", "irc_part", "irc_channels", "irc_who", "irc_topic", "compact", "clear", "status"]);
    for (const t of TOOLS_IPC_TYPES) expect(isControlType(t), t).toBe(false);
  });

  it("keeps today's MCP input field names", () => {
    const keys = Object.fromEntries(IRC_TOOLS.map((t) => [t.name, Object.keys(t.input)]));
    expect(keys).toMatchObject({ send: ["target", "message"], read: ["channel", "limit"], ask: ["channel", "question", "timeout_seconds"], who: ["target"], topic: ["channel", "topic"], status: [] });
  });

  it("docs/irc-tools.md shows the catalogue as it is", () => {
    expect(readFileSync(DOC, "utf8")).toContain(catalogueMarkdown());
  });

  it("a new command is one definition: its CLI form, MCP tool and request schema follow", async () => {
    const away = defineIrcCommand({
      name: "away",
      ipcType: "irc_away",
      summary: "mark yourself away, with a reason",
      details: "Sets AWAY.",
      examples: ["culture channel away 'in a long build'"],
      args: [{ field: "reason", kind: "text", label: "reason", optional: true, describe: "why; omit to come back" }],
      options: [{ flag: "for", field: "seconds", mcpName: "for_seconds", describe: "seconds until back", default: 600, max: 86_400 }],
      description: "Mark yourself away on IRC.",
      request: (zz) => zz.object({ reason: zz.string().optional(), seconds: zz.number() }),
      handle: async (fields) => ({ away: fields.reason !== undefined }),
      format: (data) => (data.away ? "away" : "back"),
    });
    expect(usageOf(away)).toBe("away [--for N] [reason...]");
    expect(commandHelp(away)).toContain("--for N  seconds until back (default 600)");
    expect(fieldsFromWords(away, ["long", "build"], { for: 60 })).toEqual({ reason: "long build", seconds: 60 });
    const input = z.object(mcpInputShape(away, z));
    expect(input.safeParse({ reason: "x", for_seconds: 5 }).success).toBe(true);
    expect(input.safeParse({ for_seconds: -1 }).success).toBe(false);
    expect(fieldsFromMcp(away, {})).toEqual({ seconds: 600 });
    expect(away.request(z).safeParse({ seconds: 600 }).success).toBe(true);
  });

  it("the request schemas accept the reference wire format and name the field they refuse", () => {
    const schema = (name: string) => IRC_COMMANDS.find((c) => c.name === name)!.request(z);
    const errors = (name: string, req: Record<string, unknown>) => {
      const r = schema(name).safeParse(req);
      return r.success ? null : r.error.issues.map((i) => i.message);
    };
    expect(schema("read").parse({ channel: " #general\r\n", limit: "10" })).toEqual({ channel: "#general", limit: 10 });
    expect(schema("read").parse({ channel: "#general", limit: null })).toEqual({ channel: "#general", limit: 50 });
    expect(schema("ask").parse({ channel: "#g", message: "q?" })).toMatchObject({ message: "q?", timeout: 300 });
    expect(schema("who").parse({ target: "alice" })).toEqual({ channel: "alice" });
    expect(errors("send", { channel: "#g" })).toEqual(['missing field "message" (a string)']);
    expect(errors("send", { channel: "#g h", message: "x" })).toEqual(['field "channel" must not contain spaces']);
    expect(errors("send", { channel: "\r\n", message: "x" })).toEqual(['field "channel" is empty']);
    expect(errors("read", { channel: "#g", limit: 1.5 })).toEqual(['field "limit" must be an integer']);
    expect(errors("read", { channel: "#g", limit: "ten" })).toEqual(['field "limit" must be a number']);
    expect(errors("ask", { channel: "#g", question: "q", timeout: 0 })).toEqual(['field "timeout" must be greater than 0, got 0']);
    expect(errors("who", {})).toEqual(['missing field "channel" (or "target")']);
    expect(errors("topic", { channel: "#g", topic: 5 })).toEqual(['field "topic" must be a string']);
  });
});

// Printed for docs/irc-tools.md when it must be refreshed: CATALOGUE_TABLE=1 npx vitest run ...
if (process.env.CATALOGUE_TABLE) console.log(catalogueMarkdown());
