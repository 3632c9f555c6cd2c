// An agent entry's backend fields, validated by a real backend's zod schema loaded from a
// throw-away package.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseBackendOptions, resolveBackendForAgent, schemaKeys } from "../src/discovery/backend-options.js";
import type { AgentConfig, CultureConfig } from "../src/config/schema.js";
import { isCultureError, type CultureError } from "../src/errors.js";
import { backendModule, linkZod, removeTempDirs, tempDir, writePackage } from "./fixtures/temp-packages.js";

let projectDir: string;
let builtinFrom: string;

beforeAll(() => {
  projectDir = tempDir("culture-opts-");
  linkZod(join(projectDir, "node_modules"));
  writePackage(join(projectDir, "node_modules"), "culture-backend-acpish", { "index.js": backendModule("acpish", "options-backend") });
  const install = tempDir("culture-install-");
  builtinFrom = join(install, "core.js");
});
afterAll(removeTempDirs);

function agent(options: Record<string, unknown>): AgentConfig {
  return {
    nick: "spark-opencode",
    agent: "acpish",
    directory: projectDir,
    channels: ["#general"],
    model: null,
    thinking: "medium",
    tags: [],
    system_prompt: null,
    relay: "auto",
    turn_timeout_seconds: 600,
    irc_tools: "both",
    options,
  };
}

function config(agents: AgentConfig[]): CultureConfig {
  return {
    server: { host: "localhost", port: 6667, tls: false, tls_verify: true, password: null, sasl: null },
    supervisor: null,
    webhooks: { url: null, irc_channel: "#alerts", secret: null, events: [], timeout_seconds: 10 },
    buffer_size: 500,
    operators: [],
    restart: { delay_seconds: 5, max_crashes: 3, window_seconds: 300 },
    plugins: [],
    agents,
    filepath: join(projectDir, "agents.yaml"),
  };
}

async function failure(fn: () => unknown): Promise<CultureError> {
  try {
    await fn();
  } catch (err) {
    if (isCultureError(err)) return err;
    throw err;
  }
  throw new Error("expected a CultureError");
}

describe("resolveBackendForAgent + parseBackendOptions", () => {
  it("loads the agent's backend from the config's folder and returns its parsed options with defaults", async () => {
    const a = agent({ executable: "/usr/bin/opencode" });
    const { loaded, options } = await resolveBackendForAgent(config([a]), a, { builtinFrom, globalModules: null });
    expect(loaded.packageName).toBe("culture-backend-acpish");
    expect(options).toEqual({ acp_command: ["opencode", "acp"], executable: "/usr/bin/opencode" });
  });

  it("E_BACKEND_OPTIONS: one line per field, with did-you-mean for the backend's keys and the common keys", async () => {
    const a = agent({ acp_comand: ["x"], chanels: ["#a"], executable: 42, wholly_unrelated: true });
    const cfg = config([a]);
    const { loaded } = await resolveBackendForAgent(config([agent({})]), agent({}), { builtinFrom, globalModules: null });
    const err = await failure(() => parseBackendOptions(loaded.definition, a, cfg.filepath));
    expect(err.code).toBe("E_BACKEND_OPTIONS");
    const lines = err.message.split("\n");
    expect(lines[0]).toBe(`The agent "spark-opencode" in ${cfg.filepath} has invalid fields for the backend "acpish":`);
    expect(err.message).toContain(`acp_comand: unknown field. Did you mean "acp_command"?`);
    expect(err.message).toContain(`chanels: unknown field. Did you mean "channels"?`);
    expect(err.message).toContain(`wholly_unrelated: unknown field (the backend "acpish" knows: acp_command, executable)`);
    expect(err.message).toMatch(/executable: .*expected string/);
    expect(lines).toHaveLength(5);
  });

  it("the same check runs through resolveBackendForAgent", async () => {
    const a = agent({ acp_comand: ["x"] });
    const err = await failure(() => resolveBackendForAgent(config([a]), a, { builtinFrom, globalModules: null }));
    expect(err.code).toBe("E_BACKEND_OPTIONS");
  });

  it("schemaKeys looks through wrappers", async () => {
    const { z } = await import("zod");
    const schema = z.object({ a: z.string(), b: z.number() }).strict();
    expect(schemaKeys(schema)).toEqual(["a", "b"]);
    expect(schemaKeys(schema.default({ a: "x", b: 1 }))).toEqual(["a", "b"]);
    expect(schemaKeys(schema.optional())).toEqual(["a", "b"]);
    expect(schemaKeys(z.string())).toEqual([]);
  });
});
