// Runs the built `culture` binary (build first: `npm run build`).
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseConfig } from "@culture/core";

const MAIN = fileURLToPath(new URL("../dist/main.js", import.meta.url));
const EXAMPLE = fileURLToPath(new URL("../../../examples/agents.yaml", import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function culture(args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env };
  if (!options.env || !("CULTURE_CONFIG" in options.env)) delete env.CULTURE_CONFIG;
  return new Promise((resolvePromise) => {
    execFile(process.execPath, [MAIN, ...args], { cwd: options.cwd, env }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      resolvePromise({ code, stdout, stderr });
    });
  });
}

const GOOD = `server:
  name: spark
  password: \${TEST_IRC_PASSWORD}
agents:
  - nick: spark-culture
    agent: acp
    directory: project
    channels: ["#general"]
  - nick: spark-cline
    agent: acp
    acp_command: ["cline", "--acp"]
`;

describe("culture config check", () => {
  let root: string;
  let env: NodeJS.ProcessEnv;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "culture-config-check-"));
    env = { CULTURE_HOME: join(root, "home"), TEST_IRC_PASSWORD: "s3cret-pw" };
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("prints the resolved config under '# <file>: OK (<n> agents)' and exits 0", async () => {
    const file = join(root, "agents.yaml");
    writeFileSync(file, GOOD);
    const run = await culture(["config", "check", "--config", file], { cwd: root, env });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const [first, ...rest] = run.stdout.split("\n");
    expect(first).toBe(`# ${file}: OK (2 agents)`);
    // The output is itself a valid config: defaults filled in, directories absolute, backend fields flattened.
    const printed = parseConfig(rest.join("\n"), file, {});
    expect(printed.server).toMatchObject({ name: "spark", host: "localhost", port: 6667, password: "<redacted>" });
    expect(printed.agents[0]).toMatchObject({ nick: "spark-culture", agent: "acp", directory: join(root, "project"), thinking: "medium" });
    expect(printed.agents[1]?.options).toEqual({ acp_command: ["cline", "--acp"] });
    expect(run.stdout).not.toContain("s3cret-pw");
  });

  it("accepts the global --config before the command, CULTURE_CONFIG, and the search from the cwd", async () => {
    mkdirSync(join(root, "conf"));
    writeFileSync(join(root, "conf", "one.yaml"), "agents:\n  - nick: spark-one\n    agent: acp\n");
    const before = await culture(["--config", "conf/one.yaml", "config", "check"], { cwd: root, env });
    expect(before.code).toBe(0);
    expect(before.stdout.split("\n")[0]).toBe(`# ${join(root, "conf", "one.yaml")}: OK (1 agent)`);

    const fromEnv = await culture(["config", "check"], { cwd: root, env: { ...env, CULTURE_CONFIG: join(root, "conf", "one.yaml") } });
    expect(fromEnv.code).toBe(0);
    expect(fromEnv.stdout).toContain("nick: spark-one");

    const sub = join(root, "a", "b");
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(root, "a", "culture.yaml"), GOOD);
    const searched = await culture(["config", "check"], { cwd: sub, env });
    expect(searched.code).toBe(0);
    expect(searched.stdout.split("\n")[0]).toBe(`# ${join(root, "a", "culture.yaml")}: OK (2 agents)`);
  });

  it("resolves every agent's backend and validates its fields", async () => {
    const file = join(root, "agents.yaml");
    writeFileSync(file, "agents:\n  - nick: spark-x\n    agent: nosuchthing\n");
    const missing = await culture(["config", "check", "--config", file], { cwd: root, env: { ...env, CULTURE_GLOBAL_MODULES: join(root, "g") } });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('couldn\'t find the backend "nosuchthing" used by agent "spark-x"');
    expect(missing.stderr).toContain("culture backend create nosuchthing");
    writeFileSync(file, "agents:\n  - nick: spark-x\n    agent: acp\n    acp_comand: [x]\n");
    const typo = await culture(["config", "check", "--config", file], { cwd: root, env });
    expect(typo.code).toBe(1);
    expect(typo.stderr).toMatch(/acp_comand.*Did you mean "acp_command"\?/s);
  });

  it("prints one line per problem (no stack) and exits 1 for an invalid config", async () => {
    const file = join(root, "agents.yaml");
    writeFileSync(file, "agnets: []\nagents:\n  - nick: spark-a\n    channels: [general]\n");
    const run = await culture(["config", "check"], { cwd: root, env });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr.trimEnd().split("\n")).toEqual([
      `${file}: unknown key "agnets" (did you mean "agents"?) (line 1)`,
      `${file}: agents[0].channels[0]: expected a channel name like #general (starts with # or &, no spaces or commas), got "general" (line 4)`,
    ]);
  });

  it("exits 1 with the message for a YAML error, a missing variable and a missing file", async () => {
    const file = join(root, "agents.yaml");
    writeFileSync(file, "server:\n  host: x\n  port: [1, 2\n");
    const syntax = await culture(["config", "check", "--config", file], { cwd: root, env });
    expect(syntax.code).toBe(1);
    expect(syntax.stderr).toContain(`${file}: YAML syntax error:`);
    expect(syntax.stderr).not.toMatch(/^\s+at /m);

    writeFileSync(file, "webhooks:\n  secret: ${TEST_UNSET_SECRET}\n");
    const unset = await culture(["config", "check", "--config", file], { cwd: root, env });
    expect(unset.code).toBe(1);
    expect(unset.stderr).toContain(`${file}: webhooks.secret: environment variable TEST_UNSET_SECRET is not set (line 2)`);

    const missing = await culture(["config", "check", "--config", "nope.yaml"], { cwd: root, env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`${join(root, "nope.yaml")} (from --config) does not exist`);
    expect(missing.stderr).toContain("culture init");
  });

  it("validates the shipped example (examples/agents.yaml)", async () => {
    const run = await culture(["config", "check", "--config", EXAMPLE], { cwd: root, env });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout.split("\n")[0]).toBe(`# ${EXAMPLE}: OK (1 agent)`);
    expect(run.stdout).toContain("- examples/demo-agent.mjs");
  });

  it("reports every mistake in one run: schema, unknown backends (did you mean, ACP agents), backend fields with line numbers", async () => {
    const file = join(root, "agents.yaml");
    writeFileSync(
      file,
      [
        "server: { name: spark, port: 6667, hots: x }",
        "agents:",
        "  - nick: spark-a",
        "    agent: claudee",
        "  - nick: spark-b",
        "    agent: opencode",
        "  - nick: spark-c",
        "    agent: acp",
        '    acp_comand: ["x"]',
        "  - nick: spark-d",
        "    agent: acp",
        '    chanels: ["#a"]',
        "",
      ].join("\n"),
    );
    const run = await culture(["config", "check", "--config", file], { cwd: root, env: { ...env, CULTURE_GLOBAL_MODULES: "" } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("5 problems:");
    expect(run.stderr).toContain(`${file}: server: unknown key "hots" (did you mean "host"?) (line 1)`);
    expect(run.stderr).toContain(`culture couldn't find the backend "claudee" used by agent "spark-a"`);
    expect(run.stderr).toContain(`Did you mean "claude"?`);
    expect(run.stderr).not.toMatch(/backend add claudee|npm install[^\n]*claudee/);
    expect(run.stderr).toContain(`"opencode" is an ACP agent, not a backend`);
    expect(run.stderr).toContain(`acp_command: ["opencode","acp"]`);
    expect(run.stderr).toContain(`acp_comand: unknown field. Did you mean "acp_command"? (line 9)`);
    expect(run.stderr).toContain(`chanels: unknown field. Did you mean "channels"? (line 12)`);
  });
});

