import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { configToYaml, REDACTED } from "../src/config/config-to-yaml.js";
import { CONFIG_SEARCH_PLACES, loadConfig, parseConfig, resolveConfig } from "../src/config/load-config.js";
import { didYouMean } from "../src/did-you-mean.js";
import { CultureError, type CultureErrorCode } from "../src/errors.js";

// The specification's example, verbatim (seeds/000_34f4d87ecbe53c71.txt, "Configuration Schema").
const SPEC_EXAMPLE = `server:
  name: spark
  host: localhost
  port: 6667

supervisor:
  agent: claude              # backend for the supervisor
  model: claude-sonnet-4-6
  thinking: medium
  window_size: 20
  eval_interval: 5
  escalation_threshold: 3

agents:
  - nick: spark-culture
    agent: claude            # backend for this agent
    directory: /home/user/project-a
    model: claude-opus-4-6
    thinking: medium
    channels:
      - "#general"

  - nick: spark-codex
    agent: codex
    directory: /home/user/project-b
    model: o3
    channels:
      - "#general"

  - nick: spark-cline
    agent: acp
    acp_command: ["cline", "--acp"]
    directory: /home/user/project-c
    model: anthropic/claude-sonnet-4-6
    channels:
      - "#general"
`;

// DESIGN.md section 3, verbatim.
const DESIGN_EXAMPLE = `server:     { name: spark, host: localhost, port: 6667, tls: false, password: ~, sasl: ~ }
supervisor: { agent: claude, model: claude-sonnet-4-6, thinking: medium,
              window_size: 20, eval_interval: 5, escalation_threshold: 3, prompt_override: ~,
              command: ~ }   # with agent: command — argv of an evaluator command
webhooks:   { url: ~, irc_channel: "#alerts", secret: ~,
              events: [agent_spiraling, agent_error, agent_question, agent_timeout, agent_complete] }
buffer_size: 500
operators: []            # nicks (or services accounts) allowed to resume/abort/pause from IRC
restart: { delay_seconds: 5, max_crashes: 3, window_seconds: 300 }
plugins: []
agents:
  - nick: spark-culture  # <server>-<name>; required
    agent: claude        # backend; default claude
    directory: /home/user/project-a
    channels: ["#general"]
    model: claude-opus-4-6
    thinking: medium     # none|low|medium|high|max
    tags: []
    system_prompt: ~     # appended to the backend's default agent prompt
    relay: auto          # auto|always|never (section 5)
    turn_timeout_seconds: 600
    # backend-specific fields, validated by the backend's configSchema:
    acp_command: ["opencode", "acp"]   # acp
    executable: ~                      # claude/codex/copilot: path to the agent CLI
`;

const FILE = "/etc/culture/agents.yaml";

/** Runs `fn`, expects a CultureError with `code`, and returns its message. */
function failure(fn: () => unknown, code: CultureErrorCode): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(CultureError);
    expect((err as CultureError).code).toBe(code);
    return (err as CultureError).message;
  }
  throw new Error(`expected ${code}, but nothing was thrown`);
}

async function asyncFailure(promise: Promise<unknown>, code: CultureErrorCode): Promise<string> {
  const err = await promise.then(
    () => new Error(`expected ${code}, but nothing was thrown`),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CultureError);
  expect((err as CultureError).code).toBe(code);
  return (err as CultureError).message;
}

describe("didYouMean", () => {
  it("suggests the closest candidate for a typo, and nothing for an unrelated word", () => {
    const keys = ["server", "supervisor", "webhooks", "buffer_size", "operators", "restart", "plugins", "agents"];
    expect(didYouMean("agnets", keys)).toBe("agents");
    expect(didYouMean("servr", keys)).toBe("server");
    expect(didYouMean("Plugins", keys)).toBe("plugins");
    expect(didYouMean("buffersize", keys)).toBe("buffer_size");
    expect(didYouMean("hots", ["host", "port", "tls"])).toBe("host");
    expect(didYouMean("colour", keys)).toBeNull();
    expect(didYouMean("x", ["y"])).toBeNull();
    expect(didYouMean("agents", [])).toBeNull();
  });
});

describe("parseConfig: the specification's formats", () => {
  it("loads the specification's example as is, with the defaults filled in", () => {
    const config = parseConfig(SPEC_EXAMPLE, FILE, {});
    expect(config.filepath).toBe(FILE);
    expect(config.server).toEqual({ name: "spark", host: "localhost", port: 6667, tls: false, tls_verify: true, password: null, sasl: null });
    expect(config.supervisor).toMatchObject({
      agent: "claude",
      model: "claude-sonnet-4-6",
      thinking: "medium",
      window_size: 20,
      eval_interval: 5,
      escalation_threshold: 3,
      prompt_override: null,
      command: null,
    });
    expect(config.webhooks).toMatchObject({
      url: null,
      irc_channel: "#alerts",
      secret: null,
      // The specification's five, approval_requested (approval_resolved is opt-in), and the budget alerts.
      events: ["agent_spiraling", "agent_error", "agent_question", "agent_timeout", "agent_complete", "approval_requested", "budget_warning", "budget_exceeded"],
    });
    expect(config.buffer_size).toBe(500);
    expect(config.operators).toEqual([]);
    expect(config.restart).toEqual({ delay_seconds: 5, max_crashes: 3, window_seconds: 300 });
    expect(config.plugins).toEqual([]);
    expect(config.agents.map((a) => a.nick)).toEqual(["spark-culture", "spark-codex", "spark-cline"]);
    expect(config.agents[0]).toEqual({
      nick: "spark-culture",
      agent: "claude",
      allow: null,
      directory: "/home/user/project-a",
      channels: ["#general"],
      model: "claude-opus-4-6",
      thinking: "medium",
      tags: [],
      system_prompt: null,
      relay: "auto",
      turn_timeout_seconds: 600,
      irc_tools: "both",
      permissions: null,
      receipts: null,
      budget: null,
      schedules: [],
      trigger: null,
      scripts: null,
      sandbox: null,
      stall_seconds: null,
      mirror: null,
      context: null,
      options: {},
    });
    expect(config.receipts).toBe("auto");
    expect(config.sandbox).toEqual({ kind: "none", network: "on", allow: [], read_only: [], read_write: [], image: null, containerfile: null });
    expect(config.presence).toEqual({ channel: "#culture-presence", min_interval_seconds: 2, heartbeat_seconds: 60 });
    expect(config.agents[1]).toMatchObject({ agent: "codex", model: "o3", thinking: "medium", directory: "/home/user/project-b", options: {} });
    expect(config.agents[2]).toMatchObject({
      agent: "acp",
      model: "anthropic/claude-sonnet-4-6",
      options: { acp_command: ["cline", "--acp"] },
    });
  });

  it("reads receipts: per agent and at the top level, and refuses anything but auto, notice or off", () => {
    const config = parseConfig("receipts: notice\nagents:\n  - nick: spark-a\n    receipts: \"off\"\n  - nick: spark-b\n", FILE, {});
    expect(config.receipts).toBe("notice");
    expect(config.agents.map((a) => a.receipts)).toEqual(["off", null]);
    expect(() => parseConfig("agents:\n  - nick: spark-a\n    receipts: loud\n", FILE, {})).toThrow(/receipts/);
    expect(() => parseConfig("receipts: yes\nagents: []\n", FILE, {})).toThrow(/receipts/);
  });

  it("loads DESIGN.md's full example; backend fields go to options untouched", () => {
    const config = parseConfig(DESIGN_EXAMPLE, FILE, {});
    expect(config.supervisor?.agent).toBe("claude");
    expect(config.agents).toHaveLength(1);
    const [agent] = config.agents;
    expect(agent?.options).toEqual({ acp_command: ["opencode", "acp"], executable: null });
    expect(Object.keys(agent ?? {})).not.toContain("acp_command");
  });

  it("fills in every default for a minimal config; no supervisor section means none", () => {
    const config = parseConfig("agents:\n  - nick: spark-a\n", "/p/agents.yaml", {});
    expect(config.supervisor).toBeNull();
    expect(config.server).toMatchObject({ host: "localhost", port: 6667, tls: false });
    expect(config.agents[0]).toMatchObject({
      agent: "claude",
      directory: "/p",
      channels: ["#general"],
      model: null,
      thinking: "medium",
      relay: "auto",
      turn_timeout_seconds: 600,
      irc_tools: "both",
    });
  });

  it("validates irc_tools: mcp, cli or both", () => {
    expect(parseConfig("agents:\n  - nick: spark-a\n    irc_tools: mcp\n", FILE, {}).agents[0]?.irc_tools).toBe("mcp");
    expect(() => parseConfig("agents:\n  - nick: spark-a\n    irc_tools: shell\n", FILE, {})).toThrow(/irc_tools/);
  });

  it("treats an empty file, and empty (null) top-level sections, as the defaults", () => {
    expect(parseConfig("", FILE, {}).agents).toEqual([]);
    expect(parseConfig("# only comments\n", FILE, {}).agents).toEqual([]);
    const config = parseConfig("server:\n  # host: x\nagents:\noperators:\n", FILE, {});
    expect(config.server.port).toBe(6667);
    expect(config.agents).toEqual([]);
    expect(config.operators).toEqual([]);
  });

  it("resolves directories against the config file's folder and expands ~", () => {
    const yaml = `agents:
  - { nick: spark-a, directory: ../project }
  - { nick: spark-b, directory: "~/work" }
  - { nick: spark-c, directory: "~" }
  - { nick: spark-d }
  - { nick: spark-e, directory: /abs/olute }
`;
    const config = parseConfig(yaml, "/home/u/conf/agents.yaml", { HOME: "/home/u" });
    expect(config.agents.map((a) => a.directory)).toEqual(["/home/u/project", "/home/u/work", "/home/u", "/home/u/conf", "/abs/olute"]);
  });

  it("resolveConfig validates an object built in code", () => {
    const config = resolveConfig({ agents: [{ nick: "spark-x", directory: "/tmp" }] }, { filepath: null, env: {} });
    expect(config.filepath).toBeNull();
    expect(config.agents[0]?.directory).toBe("/tmp");
    const message = failure(() => resolveConfig({ agents: [{ nick: "x" }] }, { env: {} }), "E_CONFIG_INVALID");
    expect(message).toContain("<config>: agents[0].nick:");
  });
});

describe("parseConfig: readable errors", () => {
  it("names the file, the key path and the line for a wrong type", () => {
    const message = failure(() => parseConfig("server:\n  port: '6667'\n", FILE, {}), "E_CONFIG_INVALID");
    expect(message).toBe(`${FILE}: server.port: expected a number, got the string "6667" (line 2)`);
  });

  it("reports an unknown key with a did-you-mean, at any depth", () => {
    const message = failure(() => parseConfig("agnets: []\nserver:\n  hots: x\n", FILE, {}), "E_CONFIG_INVALID");
    expect(message.split("\n")).toEqual([
      `${FILE}: unknown key "agnets" (did you mean "agents"?) (line 1)`,
      `${FILE}: server: unknown key "hots" (did you mean "host"?) (line 3)`,
    ]);
  });

  it("validates catch_up.max_age_seconds: one day by default, a whole number of seconds >= 0", () => {
    expect(parseConfig("{}\n", FILE, {}).catch_up).toEqual({ max_age_seconds: 86_400 });
    expect(parseConfig("catch_up:\n  max_age_seconds: 0\n", FILE, {}).catch_up).toEqual({ max_age_seconds: 0 });
    expect(failure(() => parseConfig("catch_up:\n  max_age_seconds: -5\n", FILE, {}), "E_CONFIG_INVALID")).toBe(
      `${FILE}: catch_up.max_age_seconds: expected a number >= 0, got -5 (line 2)`,
    );
    expect(failure(() => parseConfig("catch_up:\n  max_age: 60\n", FILE, {}), "E_CONFIG_INVALID")).toContain(
      `catch_up: unknown key "max_age" (known keys: max_age_seconds)`,
    );
  });

  it("lists the known keys when an unknown key is not a near miss", () => {
    const message = failure(() => parseConfig("restart:\n  banana: 1\n", FILE, {}), "E_CONFIG_INVALID");
    expect(message).toContain(`restart: unknown key "banana" (known keys: delay_seconds, max_crashes, window_seconds)`);
  });

  it("explains a channel without # in the specification's words", () => {
    const yaml = `agents:\n  - nick: spark-a\n  - nick: spark-b\n    channels: ["#ok", general]\n`;
    const message = failure(() => parseConfig(yaml, FILE, {}), "E_CONFIG_INVALID");
    expect(message).toMatch(new RegExp(`^${FILE}: agents\\[1\\]\\.channels\\[1\\]: expected a channel name like #general.*, got "general" \\(line 4\\)$`));
  });

  it("suggests the right enum value and reports a missing required key", () => {
    const message = failure(() => parseConfig("agents:\n  - nick: spark-a\n    thinking: hihg\n  - agent: acp\n", FILE, {}), "E_CONFIG_INVALID");
    expect(message).toContain(`${FILE}: agents[0].thinking: expected one of none, low, medium, high, max, got "hihg" (did you mean "high"?) (line 3)`);
    expect(message).toContain(`${FILE}: agents[1].nick: is required (line 4)`);
  });

  it("reports every problem at once, one line each, never a zod dump", () => {
    const yaml = "buffer_size: 0\nserver:\n  port: 70000\nwebhooks:\n  url: nope\nagents:\n  - nick: spark-a\n    channels: '#general'\n";
    const lines = failure(() => parseConfig(yaml, FILE, {}), "E_CONFIG_INVALID").split("\n");
    expect(lines).toEqual([
      `${FILE}: buffer_size: expected a number >= 1, got 0 (line 1)`,
      `${FILE}: server.port: expected a number <= 65535, got 70000 (line 3)`,
      `${FILE}: webhooks.url: expected a URL like https://example.com/hook, got "nope" (line 5)`,
      `${FILE}: agents[0].channels: expected a list, got the string "#general" (line 8)`,
    ]);
  });

  it("does not echo a secret in an error", () => {
    const message = failure(() => parseConfig("server:\n  password: 123456789\n", FILE, {}), "E_CONFIG_INVALID");
    expect(message).toContain("server.password: expected a string, got a number (value hidden)");
    expect(message).not.toContain("123456789");
  });

  it("rejects a nick that is not a valid IRC nick", () => {
    const message = failure(() => parseConfig(`agents:\n  - nick: "spark culture"\n`, FILE, {}), "E_CONFIG_INVALID");
    expect(message).toContain(`${FILE}: agents[0].nick: "spark culture" is not a valid IRC nick`);
  });

  it("requires <server>-<name> when server.name is not set", () => {
    for (const nick of ["culture", "spark-"]) {
      const message = failure(() => parseConfig(`agents:\n  - nick: ${nick}\n`, FILE, {}), "E_CONFIG_INVALID");
      expect(message).toContain(`${FILE}: agents[0].nick: expected <server>-<name>`);
      expect(message).toContain(`got "${nick}"`);
    }
    expect(parseConfig("agents:\n  - nick: thor-claude\n", FILE, {}).agents[0]?.nick).toBe("thor-claude");
  });

  it("requires the nick to start with <server.name>- when server.name is set", () => {
    const yaml = "server: { name: spark }\nagents:\n  - nick: spark-ok\n  - nick: Spark-alsook\n  - nick: ember-codex\n  - nick: sparkle-x\n";
    const lines = failure(() => parseConfig(yaml, FILE, {}), "E_CONFIG_INVALID").split("\n");
    expect(lines).toEqual([
      `${FILE}: agents[2].nick: expected <server>-<name> starting with "spark-" (server.name is spark), got "ember-codex" (line 5)`,
      `${FILE}: agents[3].nick: expected <server>-<name> starting with "spark-" (server.name is spark), got "sparkle-x" (line 6)`,
    ]);
  });

  it("rejects duplicate nicks with IRC casefolding, naming both positions", () => {
    const yaml = "agents:\n  - nick: spark-a\n  - nick: spark-b[x]\n  - nick: Spark-A\n  - nick: spark-B{X}\n";
    const lines = failure(() => parseConfig(yaml, FILE, {}), "E_CONFIG_INVALID").split("\n");
    expect(lines).toEqual([
      `${FILE}: agents[2].nick: duplicate nick "Spark-A": agents[0].nick is already "spark-a" (IRC nicks ignore case) (line 4)`,
      `${FILE}: agents[3].nick: duplicate nick "spark-B{X}": agents[1].nick is already "spark-b[x]" (IRC nicks ignore case) (line 5)`,
    ]);
  });

  it("reports a YAML syntax error with its line and column", () => {
    const message = failure(() => parseConfig("server:\n  host: x\n  port: [1, 2\nagents: []\n", FILE, {}), "E_CONFIG_PARSE");
    expect(message).toMatch(new RegExp(`^${FILE}: YAML syntax error: .* at line 4, column 1`));
  });

  it("reports duplicate keys and unresolved aliases as parse errors", () => {
    expect(failure(() => parseConfig("buffer_size: 1\nbuffer_size: 2\n", FILE, {}), "E_CONFIG_PARSE")).toContain("at line 2, column 1");
    expect(failure(() => parseConfig("plugins: *nope\n", FILE, {}), "E_CONFIG_PARSE")).toContain(`${FILE}: YAML`);
  });

  it("reports a top level that is not a mapping", () => {
    const message = failure(() => parseConfig("- a\n- b\n", FILE, {}), "E_CONFIG_INVALID");
    expect(message).toBe(`${FILE}: expected a mapping (key: value), got a list`);
  });
});

describe("parseConfig: ${ENV} interpolation", () => {
  it("replaces ${VAR} and ${VAR:-default} in every string value, at any depth", () => {
    const yaml = `server:
  host: \${IRC_HOST}
  password: "pre-\${IRC_PASS}-post"
webhooks:
  secret: \${SECRET:-fallback}
  irc_channel: "\${ALERTS:-#alerts}"
agents:
  - nick: spark-\${NAME}
    acp_command: ["\${AGENT_BIN}", "--flag", "$\${NOT_A_VAR}"]
    system_prompt: "\${EMPTY:-was empty} / \${EMPTY}|"
`;
    const env = { IRC_HOST: "irc.example.net", IRC_PASS: "hunter2", NAME: "x", AGENT_BIN: "/bin/agent", EMPTY: "" };
    const config = parseConfig(yaml, FILE, env);
    expect(config.server.host).toBe("irc.example.net");
    expect(config.server.password).toBe("pre-hunter2-post");
    expect(config.webhooks.secret).toBe("fallback");
    expect(config.webhooks.irc_channel).toBe("#alerts");
    expect(config.agents[0]?.nick).toBe("spark-x");
    expect(config.agents[0]?.options.acp_command).toEqual(["/bin/agent", "--flag", "${NOT_A_VAR}"]);
    expect(config.agents[0]?.system_prompt).toBe("was empty / |");
  });

  it("turns a value that comes out empty into null (an optional secret left unset)", () => {
    const config = parseConfig("webhooks:\n  url: ${HOOK_URL:-}\n", FILE, {});
    expect(config.webhooks.url).toBeNull();
    expect(parseConfig("webhooks:\n  url: ${HOOK_URL:-}\n", FILE, { HOOK_URL: "https://h.example/x" }).webhooks.url).toBe("https://h.example/x");
  });

  it("does not touch keys, numbers or text without references", () => {
    const config = parseConfig("agents:\n  - nick: spark-a\n    $literal: 5\n    price: $5 ${\n", FILE, {});
    expect(config.agents[0]?.options).toEqual({ $literal: 5, price: "$5 ${" });
  });

  it("names the file, the key path and the variable when a variable is not set", () => {
    const yaml = "webhooks:\n  secret: ${WEBHOOK_SECRET}\nagents:\n  - nick: spark-a\n    acp_command: [x, '${AGENT_ARG}']\n";
    const message = failure(() => parseConfig(yaml, FILE, {}), "E_CONFIG_ENV");
    const lines = message.split("\n");
    expect(lines[0]).toBe(`${FILE}: webhooks.secret: environment variable WEBHOOK_SECRET is not set (line 2)`);
    expect(lines[1]).toBe(`${FILE}: agents[0].acp_command[1]: environment variable AGENT_ARG is not set (line 5)`);
    expect(lines[2]).toContain("${WEBHOOK_SECRET:-value}");
  });

  it("uses process.env by default", () => {
    process.env.CULTURE_TEST_CONFIG_HOST = "from-process-env";
    try {
      expect(parseConfig("server: { host: '${CULTURE_TEST_CONFIG_HOST}' }\n", FILE).server.host).toBe("from-process-env");
    } finally {
      delete process.env.CULTURE_TEST_CONFIG_HOST;
    }
  });
});

describe("configToYaml", () => {
  it("writes a config that loads back to the same config, agents flattened", () => {
    const config = parseConfig(SPEC_EXAMPLE, FILE, {});
    const text = configToYaml(config, { redact: false });
    expect(text).toContain("acp_command:");
    expect(text).not.toContain("options:");
    expect(text).not.toContain("filepath");
    expect(parseConfig(text, FILE, {})).toEqual(config);
  });

  it("redacts secrets by default", () => {
    const yaml = "server:\n  password: pw1\n  sasl: { account: a, password: pw2 }\nwebhooks:\n  url: https://u:pw3@h.example/x\n  secret: pw4\n";
    const text = configToYaml(parseConfig(yaml, FILE, {}));
    for (const secret of ["pw1", "pw2", "pw3", "pw4"]) expect(text).not.toContain(secret);
    expect(text).toContain(`password: ${REDACTED}`);
    expect(text).toContain("https://u:redacted@h.example/x");
  });

  it("redacts secret-named backend fields (a BYOK api_key, env tokens) by default", () => {
    const yaml =
      "agents:\n  - nick: spark-copilot\n    agent: copilot\n    env: {GH_TOKEN: pw5, LANG: C}\n" +
      "    provider: {base_url: 'http://127.0.0.1:8000/v1', api_key: pw6}\n";
    const config = parseConfig(yaml, FILE, {});
    const text = configToYaml(config);
    for (const secret of ["pw5", "pw6"]) expect(text).not.toContain(secret);
    expect(text).toContain(`api_key: ${REDACTED}`);
    expect(text).toContain("LANG: C");
    expect(text).toContain("base_url: http://127.0.0.1:8000/v1");
    expect(configToYaml(config, { redact: false })).toContain("api_key: pw6");
  });
});

describe("loadConfig: finding the file", () => {
  let root: string;
  let home: string;
  const minimal = (nick: string) => `agents:\n  - nick: ${nick}\n`;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "culture-config-"));
    home = join(root, "culture-home");
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const load = (opts: { configPath?: string; cwd?: string; env?: NodeJS.ProcessEnv } = {}) =>
    loadConfig({ cwd: root, stopDir: root, ...opts, env: { CULTURE_HOME: home, ...opts.env } });

  it("loads an explicit --config path, relative to the cwd", async () => {
    mkdirSync(join(root, "conf"));
    writeFileSync(join(root, "conf", "mine.yml"), minimal("spark-explicit"));
    writeFileSync(join(root, "agents.yaml"), minimal("spark-searched"));
    const config = await load({ configPath: "conf/mine.yml" });
    expect(config.filepath).toBe(join(root, "conf", "mine.yml"));
    expect(config.agents[0]?.nick).toBe("spark-explicit");
    expect(config.agents[0]?.directory).toBe(join(root, "conf"));
  });

  // A named YAML file is read without cosmiconfig (config-file.ts); what only cosmiconfig does
  // must still reach it: a JS config, package.json's `culture` key, `$import`.
  it("loads an explicit JS config as code, not as YAML", async () => {
    writeFileSync(join(root, "my.config.mjs"), `export default { agents: [{ nick: "js-explicit" }] };\n`);
    expect((await load({ configPath: "my.config.mjs" })).agents[0]?.nick).toBe("js-explicit");
  });

  it("takes the culture key of an explicit package.json", async () => {
    writeFileSync(join(root, "package.json"), JSON.stringify({ name: "x", culture: { agents: [{ nick: "spark-pkg" }] } }));
    expect((await load({ configPath: "package.json" })).agents[0]?.nick).toBe("spark-pkg");
  });

  it("merges what an explicit YAML file's $import names", async () => {
    writeFileSync(join(root, "base.yaml"), "server: { name: based }\n");
    writeFileSync(join(root, "mine.yaml"), `$import: base.yaml\n${minimal("based-a")}`);
    const config = await load({ configPath: "mine.yaml" });
    expect(config.server.name).toBe("based");
    expect(config.agents[0]?.nick).toBe("based-a");
  });

  it("reads an explicit empty file, or one with another extension, as YAML; a folder is no file", async () => {
    writeFileSync(join(root, "empty.yaml"), "  \n");
    expect((await load({ configPath: "empty.yaml" })).agents).toEqual([]);
    writeFileSync(join(root, "fleet.conf"), minimal("spark-conf"));
    expect((await load({ configPath: "fleet.conf" })).agents[0]?.nick).toBe("spark-conf");
    writeFileSync(join(root, "bad.yml"), "agents: [\n");
    expect(await asyncFailure(load({ configPath: "bad.yml" }), "E_CONFIG_PARSE")).toContain(`${join(root, "bad.yml")}: YAML syntax error`);
    mkdirSync(join(root, "dir.yaml"));
    expect(await asyncFailure(load({ configPath: "dir.yaml" }), "E_CONFIG_NOT_FOUND")).toContain("(from --config) is a directory, not a file");
  });

  it("honours CULTURE_CONFIG when no path is given, --config over it", async () => {
    writeFileSync(join(root, "a.yaml"), minimal("spark-env"));
    writeFileSync(join(root, "b.yaml"), minimal("spark-flag"));
    expect((await load({ env: { CULTURE_CONFIG: join(root, "a.yaml") } })).agents[0]?.nick).toBe("spark-env");
    expect((await load({ configPath: "b.yaml", env: { CULTURE_CONFIG: join(root, "a.yaml") } })).agents[0]?.nick).toBe("spark-flag");
  });

  it("says which explicit file is missing", async () => {
    const message = await asyncFailure(load({ configPath: "missing.yaml" }), "E_CONFIG_NOT_FOUND");
    expect(message).toContain(`${join(root, "missing.yaml")} (from --config) does not exist`);
    const fromEnv = await asyncFailure(load({ env: { CULTURE_CONFIG: join(root, "gone.yaml") } }), "E_CONFIG_NOT_FOUND");
    expect(fromEnv).toContain("(from CULTURE_CONFIG)");
  });

  it("searches the cwd and then each folder above it; the nearest file wins", async () => {
    const deep = join(root, "a", "b", "c");
    mkdirSync(deep, { recursive: true });
    writeFileSync(join(root, "agents.yaml"), minimal("spark-top"));
    expect((await load({ cwd: deep })).filepath).toBe(join(root, "agents.yaml"));
    writeFileSync(join(root, "a", "culture.yml"), minimal("spark-middle"));
    const config = await load({ cwd: deep });
    expect(config.filepath).toBe(join(root, "a", "culture.yml"));
    expect(config.agents[0]?.directory).toBe(join(root, "a"));
  });

  it("takes the search places in order within one folder", async () => {
    // Write them in reverse so the test does not depend on file creation order.
    const places = CONFIG_SEARCH_PLACES.filter((p) => !/\.(c|m)?js$/.test(p));
    for (const [i, place] of [...places.entries()].reverse()) {
      writeFileSync(join(root, place), place.endsWith(".json") ? `{"agents":[{"nick":"spark-p${i}"}]}` : minimal(`spark-p${i}`));
    }
    for (const [i, place] of places.entries()) {
      const config = await load();
      expect(config.filepath).toBe(join(root, place));
      expect(config.agents[0]?.nick).toBe(`spark-p${i}`);
      rmSync(join(root, place));
    }
  });

  it("loads a JS config (culture.config.mjs)", async () => {
    writeFileSync(join(root, "culture.config.mjs"), `export default { server: { name: "js" }, agents: [{ nick: "js-agent" }] };\n`);
    const config = await load();
    expect(config.server.name).toBe("js");
    expect(config.agents[0]?.nick).toBe("js-agent");
  });

  it("loads an empty agents.yaml found by the search as an empty config", async () => {
    writeFileSync(join(root, "agents.yaml"), "");
    const config = await load();
    expect(config.filepath).toBe(join(root, "agents.yaml"));
    expect(config.agents).toEqual([]);
  });

  it("falls back to $CULTURE_HOME/agents.yaml", async () => {
    mkdirSync(home);
    writeFileSync(join(home, "agents.yaml"), minimal("spark-home"));
    const config = await load();
    expect(config.filepath).toBe(join(home, "agents.yaml"));
    expect(config.agents[0]?.nick).toBe("spark-home");
  });

  it("fails with E_CONFIG_NOT_FOUND listing where it looked and saying culture init", async () => {
    const cwd = join(root, "x");
    mkdirSync(cwd);
    const message = await asyncFailure(load({ cwd }), "E_CONFIG_NOT_FOUND");
    expect(message).toContain("agents.yaml, agents.yml, culture.yaml");
    expect(message).toContain(`in: ${cwd} and every folder above it up to ${root}`);
    expect(message).toContain(`then: ${join(home, "agents.yaml")}`);
    expect(message).toContain("culture init");
  });

  it("reports problems in a found file with its path", async () => {
    writeFileSync(join(root, "culture.yaml"), "agents:\n  - nick: spark-a\n    channels: [general]\n");
    const message = await asyncFailure(load(), "E_CONFIG_INVALID");
    expect(message).toContain(`${join(root, "culture.yaml")}: agents[0].channels[0]: expected a channel name like #general`);
    writeFileSync(join(root, "culture.yaml"), "agents: [\n");
    expect(await asyncFailure(load(), "E_CONFIG_PARSE")).toContain(`${join(root, "culture.yaml")}: YAML syntax error`);
    writeFileSync(join(root, "culture.yaml"), "webhooks: { secret: '${NOT_SET_ANYWHERE}' }\n");
    expect(await asyncFailure(load(), "E_CONFIG_ENV")).toContain(`${join(root, "culture.yaml")}: webhooks.secret: environment variable NOT_SET_ANYWHERE is not set`);
  });

  it("reports a JS config that throws as E_CONFIG_PARSE", async () => {
    writeFileSync(join(root, "culture.config.mjs"), `throw new Error("boom in config");\n`);
    const message = await asyncFailure(load(), "E_CONFIG_PARSE");
    expect(message).toContain(join(root, "culture.config.mjs"));
    expect(message).toContain("boom in config");
  });
});

describe("parseConfig: sandbox", () => {
  it("takes none|bwrap|podman or the object form, per agent and at the top level", () => {
    const config = parseConfig(
      "sandbox: bwrap\nagents:\n  - nick: spark-a\n  - nick: spark-b\n    sandbox: { kind: bwrap, network: off, read_only: [/opt/docs], read_write: [~/cache] }\n  - nick: spark-c\n    sandbox: none\n",
      "/tmp/sandbox/agents.yaml",
    );
    expect(config.sandbox).toMatchObject({ kind: "bwrap", network: "on" });
    expect(config.agents.map((a) => a.sandbox)).toEqual([
      null,
      { kind: "bwrap", network: "off", allow: [], read_only: ["/opt/docs"], read_write: ["~/cache"], image: null, containerfile: null },
      { kind: "none", network: "on", allow: [], read_only: [], read_write: [], image: null, containerfile: null },
    ]);
  });

  it("names the field in every bad value", () => {
    const bad = (text: string) => {
      try {
        parseConfig(text, "/tmp/sandbox/agents.yaml");
      } catch (err) {
        return (err as Error).message;
      }
      throw new Error("accepted");
    };
    expect(bad("agents:\n  - nick: spark-a\n    sandbox: bwarp\n")).toContain('agents[0].sandbox.kind: expected one of none, bwrap, podman, got "bwarp" (did you mean "bwrap"?)');
    expect(bad("sandbox: { kind: bwrap, network: maybe }\n")).toContain('sandbox.network: expected one of on, off, got "maybe"');
    expect(bad("sandbox: { kind: bwrap, netwrk: off }\n")).toContain('sandbox: unknown key "netwrk"');
    expect(bad("agents:\n  - nick: spark-a\n    sandbox: { kind: bwrap, read_write: [''] }\n")).toContain("agents[0].sandbox.read_write[0]");
    expect(bad("sandbox: { kind: bwrap, network: off, allow: [https://ok.example, 'ftp://no.port'] }\n")).toContain("sandbox.allow[1]: a URL (https://host, http://host:port) or host:port");
    // Codex's own sandbox mode used to be spelled sandbox: on a codex agent.
    expect(bad("agents:\n  - nick: spark-a\n    agent: codex\n    sandbox: workspace-write\n")).toContain('agents[0].sandbox: "workspace-write" is a Codex sandbox mode: write it as codex_sandbox: workspace-write');
  });
});
