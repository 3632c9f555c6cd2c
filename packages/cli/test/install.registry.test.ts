/**
 * culture as a new user meets it, through a real npm registry: every workspace package is
 * published to a local verdaccio (scripts/local-registry.mjs: culture's own packages from this
 * build, everything else proxied from the public registry), then, in a fresh HOME and an empty
 * folder:
 *
 * 1. `npx culture@<version> demo --once` works, and what npx installed holds no agent SDK
 *    (its size and file count are printed, as bench/install-size.mjs does);
 * 2. `npm i -g culture` (a private prefix), `culture init --agent acp`, `culture backend add acp`
 *    (built in: nothing to install), `culture start` an agent (the offline demo agent through
 *    its `culture-demo-agent` bin) that answers a mention on a real IRC server;
 * 3. `agent: claude` before it is installed: config check names `culture backend add claude`;
 *    `culture backend add claude` installs @culture/backend-claude and `culture doctor` finds it.
 * 4. `culture backend add codex` and an agent run by the real Codex CLI (0.169, scripted model
 *    API): with npm's bin symlink (`bin/culture -> .../bin/culture.cjs`) the rules file culture
 *    writes passes `codex execpolicy check` and the agent answers with its own
 *    `culture channel send` in Codex's default sandbox (issue #31; the real Codex must be in
 *    ~/.cache/culture/agent-clis: node scripts/install-agent-clis.mjs codex).
 *
 * Download cost: verdaccio's storage and npm's cache persist under ~/.cache/culture/registry-test
 * (CULTURE_REGISTRY_CACHE), so a second run downloads only what changed upstream. Without the
 * network on a first run the test fails with npm's own output — it never skips.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentCli, connectRawClient, ircReplyScript, startIrcServer, startScriptedModelApi, type RawIrcClient, type RunningIrcServer } from "@culture/core/testing";
import { readlinkSync } from "node:fs";
import { homedir } from "node:os";
// @ts-expect-error -- a plain ESM script shared with bench/, no types.
import { folderSize, npxInstallDir, runCommand, startWorkspaceRegistry } from "../../../scripts/local-registry.mjs";

const VERSION = (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;
const NPM_TIMEOUT = 300_000;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}
interface Registry {
  url: string;
  cache: string;
  env: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

let root: string;
let registry: Registry;
let env: NodeJS.ProcessEnv;
let prefix: string;
let project: string;
let ircd: RunningIrcServer;

const run = (command: string, args: string[], cwd: string, extra: NodeJS.ProcessEnv = {}, timeoutMs = NPM_TIMEOUT): Promise<Run> =>
  runCommand(command, args, { cwd, env: { ...env, ...extra }, timeoutMs }) as Promise<Run>;

/** The globally installed `culture` (the private prefix's bin first on PATH). */
const culture = (args: string[], cwd: string, extra: NodeJS.ProcessEnv = {}) => run("culture", args, cwd, extra, 120_000);

function ok(r: Run, what: string): Run {
  expect(r.code, `${what} failed (exit ${r.code})\n--- stdout\n${r.stdout.slice(-4000)}\n--- stderr\n${r.stderr.slice(-4000)}`).toBe(0);
  return r;
}

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "culture-inst-")));
  registry = (await startWorkspaceRegistry({ workDir: root })) as Registry;
  prefix = join(root, "prefix");
  const home = join(root, "home");
  mkdirSync(home);
  mkdirSync(join(root, "run"), { mode: 0o700 });
  env = {
    ...registry.env,
    HOME: home,
    XDG_RUNTIME_DIR: join(root, "run"),
    npm_config_prefix: prefix,
    PATH: `${join(prefix, "bin")}:${process.env.PATH ?? ""}`,
  };
  ircd = await startIrcServer("ngircd");
}, NPM_TIMEOUT);

afterAll(async () => {
  await ircd?.stop();
  await registry?.stop();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe(`culture ${VERSION} from a registry, as a new user`, () => {
  it(
    "npx culture demo --once works in an empty folder, and installs no agent SDK",
    async () => {
      const empty = join(root, "empty");
      mkdirSync(empty);
      const demo = ok(await run("npx", ["--yes", `culture@${VERSION}`, "demo", "--once"], empty), "npx culture demo --once");
      expect(demo.stdout).toContain("(backend: acp, the offline demo agent that comes with culture)");
      expect(demo.stdout).toMatch(/<spark-demo> human: Hello human! I'm spark-demo, culture's demo agent/);

      const installed = npxInstallDir(registry.cache) as string | null;
      expect(installed, "npx left no install folder in its cache").toBeTruthy();
      const modules = join(installed!, "node_modules");
      const { bytes, files } = folderSize(modules) as { bytes: number; files: number };
      process.stdout.write(`npx culture@${VERSION}: ${(bytes / 1e6).toFixed(1)} MB in ${files} files (${modules})\n`);
      const present = (name: string) => folderSize(join(modules, name)).files > 0;
      for (const sdk of ["@anthropic-ai/claude-agent-sdk", "@github/copilot-sdk", "@agentclientprotocol/sdk", "core-js", "lodash", "@culture/backend-claude", "@culture/backend-codex", "@culture/backend-copilot"]) {
        expect(present(sdk), `${sdk} was installed by npx culture`).toBe(false);
      }
      expect(present("@culture/backend-acp")).toBe(true);
      // The target (issue #18): under 15 MB. 12.7 MB from a clean build, 8.4 MB of it zod; the ACP
      // SDK is bundled into the ACP backend and the demo agent, and no source maps are published.
      expect(bytes).toBeLessThan(15e6);
    },
    NPM_TIMEOUT,
  );

  it(
    "npm i -g culture, culture init --agent acp, culture start: the agent answers a mention",
    async () => {
      ok(await run("npm", ["install", "-g", `culture@${VERSION}`], root), "npm install -g culture");
      project = join(root, "project");
      mkdirSync(project);
      const init = ok(await culture(["init", "--agent", "acp", "--nick", "spark-helper", "--host", "127.0.0.1", "--port", String(ircd.port)], project), "culture init");
      expect(init.stdout).toContain(`Wrote ${join(project, "agents.yaml")}`);
      const yaml = readFileSync(join(project, "agents.yaml"), "utf8");
      expect(yaml).toMatch(/^ {4}acp_command: \["opencode", "acp"\]/m);
      // The user picks the offline demo agent that the hint names.
      expect(yaml).toContain(`["culture-demo-agent"]`);
      writeFileSync(join(project, "agents.yaml"), yaml.replace(/^ {4}acp_command: .*$/m, `    acp_command: ["culture-demo-agent"]`));

      const add = ok(await culture(["backend", "add", "acp"], project), "culture backend add acp");
      expect(add.stdout).toContain(`The acp backend comes with culture ${VERSION}: nothing to install.`);
      ok(await culture(["config", "check"], project), "culture config check");

      let alice: RawIrcClient | undefined;
      try {
        const started = ok(await culture(["start", "--all"], project), "culture start --all");
        expect(started.stdout).toContain("Started spark-helper");
        alice = await connectRawClient(ircd.port, "alice");
        await alice.join("#general");
        alice.send("PRIVMSG #general :@spark-helper echo hello from a registry install");
        const reply = await alice.waitFor(/^:spark-helper!\S+ PRIVMSG #general :/, 60_000);
        expect(reply).toContain("hello from a registry install");
      } finally {
        await alice?.close().catch(() => undefined);
        const stopped = await culture(["stop", "--all"], project);
        expect(stopped.code, stopped.stderr).toBe(0);
      }
    },
    NPM_TIMEOUT,
  );

  it(
    "agent: claude not installed names culture backend add claude; after it, culture doctor finds the backend",
    async () => {
      expect(project, "the previous test must have made the project").toBeTruthy();
      const yaml = readFileSync(join(project, "agents.yaml"), "utf8");
      writeFileSync(join(project, "agents.yaml"), yaml.replace(/^ {4}agent: "acp"$/m, `    agent: "claude"`).replace(/^ {4}acp_command: .*\n/m, ""));
      const before = await culture(["config", "check"], project);
      expect(before.code).toBe(1);
      expect(before.stderr).toContain(`culture couldn't find the backend "claude"`);
      expect(before.stderr).toContain("Install it:     culture backend add claude");
      const startBefore = await culture(["start", "--all"], project);
      expect(startBefore.code).toBe(1);
      expect(startBefore.stderr).toContain("culture backend add claude");
      const doctorBefore = await culture(["doctor"], project);
      expect(doctorBefore.code).toBe(1);
      expect(doctorBefore.stdout).toContain("culture backend add claude");

      // The SDK's per-platform binaries are optional dependencies; the test leaves them out to
      // keep its download small (a user gets them, and the backend falls back to a claude on PATH).
      const add = ok(await culture(["backend", "add", "claude"], project, { npm_config_omit: "optional" }), "culture backend add claude");
      expect(add.stdout).toContain(`Installed @culture/backend-claude ${VERSION}`);
      expect(JSON.parse(readFileSync(join(project, "package.json"), "utf8")).dependencies).toHaveProperty("@culture/backend-claude");

      const doctor = await culture(["doctor"], project);
      expect(doctor.stdout).toContain(`ok    backend of spark-helper: claude (@culture/backend-claude@${VERSION}, project)`);
      const listed = ok(await culture(["backend", "list", "--json"], project), "culture backend list");
      const claude = (JSON.parse(listed.stdout) as Record<string, unknown>[]).find((l) => l.name === "claude");
      expect(claude).toMatchObject({ source: "project", version: VERSION, error: null });
    },
    NPM_TIMEOUT,
  );

  it(
    "culture backend add codex: the real Codex answers with its own culture channel send through npm's bin symlink, in its default sandbox",
    async () => {
      const bin = join(prefix, "bin", "culture");
      expect(readlinkSync(bin), "npm's bin is a symlink to culture.cjs").toMatch(/bin\/culture\.cjs$/);
      const codexProject = join(root, "codex-project");
      mkdirSync(codexProject);
      const codex = agentCli("codex").bin!;
      const api = await startScriptedModelApi({ script: ircReplyScript() });
      // Codex warns about a CODEX_HOME under the system temp folder: keep it under ~/.cache.
      const codexRoot = join(homedir(), ".cache", "culture", "test-homes");
      mkdirSync(codexRoot, { recursive: true });
      const codexHome = mkdtempSync(join(codexRoot, "registry-codex-"));
      let alice: RawIrcClient | undefined;
      try {
        writeFileSync(
          join(codexHome, "config.toml"),
          [`model = "scripted-model"`, `model_provider = "local"`, `[model_providers.local]`, `name = "local"`, `base_url = "${api.url}/v1"`, `env_key = "CULTURE_TEST_MODEL_KEY"`, `wire_api = "responses"`, ""].join("\n"),
        );
        writeFileSync(
          join(codexProject, "agents.yaml"),
          [
            "server:",
            "  host: 127.0.0.1",
            `  port: ${ircd.port}`,
            "agents:",
            "  - nick: spark-codex",
            "    agent: codex",
            `    directory: ${codexProject}`,
            `    executable: ${codex}`,
            "    channels: ['#general']",
            "    allow: everyone",
            "    env:",
            `      CODEX_HOME: ${codexHome}`,
            "      CULTURE_TEST_MODEL_KEY: dummy",
            "",
          ].join("\n"),
        );
        const add = ok(await culture(["backend", "add", "codex"], codexProject), "culture backend add codex");
        expect(add.stdout).toContain(`Installed @culture/backend-codex ${VERSION}`);
        const doctor = await culture(["doctor"], codexProject);
        expect(doctor.stdout).toContain(`ok    spark-codex: codex rules for culture channel: codex execpolicy check allows \`culture channel ...\` (${bin})`);

        const started = ok(await culture(["start", "--all"], codexProject), "culture start --all");
        expect(started.stdout).toContain("Started spark-codex");
        const rules = readFileSync(join(codexHome, "rules", "culture.rules"), "utf8");
        expect(rules).toContain(`host_executable(name = "culture", paths = ${JSON.stringify([bin])})`);
        alice = await connectRawClient(ircd.port, "alice2");
        await alice.join("#general");
        alice.send("PRIVMSG #general :@spark-codex hello from the registry");
        const reply = await alice.waitFor(/^:spark-codex!\S+ PRIVMSG #general :/, 120_000);
        expect(reply).toContain("echo: @spark-codex hello from the registry (prompt 1)");
        const tool = api.turns().find((t) => t.afterToolResult)?.toolResults.at(-1)?.output ?? "";
        expect(tool).not.toMatch(/EPERM/);
      } finally {
        await alice?.close().catch(() => undefined);
        await culture(["stop", "--all"], codexProject);
        await api.close();
        rmSync(codexHome, { recursive: true, force: true });
      }
    },
    NPM_TIMEOUT,
  );
});
