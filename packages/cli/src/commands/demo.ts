/**
 * `culture demo`: the whole loop on one machine, with nothing to install or sign in to. It
 * starts the embedded IRC server on a free port, one agent daemon (by default the offline demo
 * agent, an ACP agent shipped in this package: dist/demo-agent.cjs, built from
 * demo/demo-agent.mjs), and a scripted human who mentions the agent; it prints the agent joining, the mention, the exact prompt the agent received, its reply on IRC, and
 * the status table. Then it keeps running so you can talk to the agent from a real IRC client,
 * until Ctrl-C stops everything. State lives in a temporary CULTURE_HOME, removed on exit.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import { configToYaml, createAgentDaemon, createLogger, CultureError, embeddedAccountStorePath, resolveConfig, usageError, type AgentDaemon } from "@culture/core";
import { AccountStore, generatePassword, startServer, type IrcServer } from "@culture/server";
import { renderTable, type AgentStatusRow } from "./status.js";
import { DemoHuman } from "../demo/demo-human.js";

/** The offline demo agent, shipped in the culture package (dist/ is one level down). */
const DEMO_AGENT = fileURLToPath(new URL("./demo-agent.cjs", import.meta.url));
const BACKENDS = ["demo", "acp", "claude", "codex", "copilot"] as const;

interface DemoOptions {
  agent: (typeof BACKENDS)[number];
  port: string;
  once?: boolean;
  timeout: string;
}

/** Registers `culture demo`. */
export function registerDemo(program: Command): void {
  program
    .command("demo")
    .description("run an IRC server, an agent and a scripted human on this machine, and show the loop")
    .option("--agent <backend>", `which agent: ${BACKENDS.join(", ")} (demo: offline, no credentials)`, "demo")
    .option("--port <port>", "IRC port (0: a free one)", "0")
    .option("--once", "exit after the scripted exchange instead of waiting for Ctrl-C")
    .option("--timeout <seconds>", "how long to wait for the agent's reply", "120")
    .action(async (opts: DemoOptions) => {
      if (!BACKENDS.includes(opts.agent)) throw usageError(`--agent must be one of ${BACKENDS.join(", ")}, got "${opts.agent}"`);
      const port = Number(opts.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw usageError(`--port must be a port number, got "${opts.port}"`);
      await runDemo({ ...opts, portNumber: port, timeoutMs: Number(opts.timeout) * 1000 });
    });
}

async function runDemo(opts: DemoOptions & { portNumber: number; timeoutMs: number }): Promise<void> {
  const out = (line = "") => process.stdout.write(`${line}\n`);
  const home = mkdtempSync(join(tmpdir(), "culture-demo-"));
  const env: NodeJS.ProcessEnv = { ...process.env, CULTURE_HOME: home };
  delete env.XDG_RUNTIME_DIR;
  let server: IrcServer | null = null;
  let daemon: AgentDaemon | null = null;
  let human: DemoHuman | null = null;
  const cleanup = async () => {
    await human?.close().catch(() => undefined);
    await daemon?.stop().catch(() => undefined);
    await server?.close().catch(() => undefined);
    rmSync(home, { recursive: true, force: true });
  };
  try {
    out("culture demo: an IRC server, an AI agent and a human, all on this machine.\n");
    // Like `culture server start`: every client logs in. The agent's daemon gets generated
    // credentials by itself; the human's account is made here.
    const accountsFile = embeddedAccountStorePath(env);
    server = await startServer({ host: "127.0.0.1", port: opts.portNumber, stateDir: null, accountsFile, name: "culture.demo" });
    const humanPassword = generatePassword();
    await new AccountStore(accountsFile).add("human", humanPassword, "human");
    out(`[1/5] embedded IRC server listening on 127.0.0.1:${server.port} (accounts required)`);

    const nick = "spark-demo";
    const agentEntry = agentFor(opts.agent, nick);
    const configPath = join(home, "agents.yaml");
    const raw = { server: { name: "spark", host: "127.0.0.1", port: server.port }, agents: [agentEntry] };
    const config = resolveConfig(raw, { filepath: configPath, env });
    writeFileSync(configPath, configToYaml(config));
    daemon = await createAgentDaemon({ nick, config, env, logger: createLogger({ level: "warn", scope: nick }) });
    const shown = daemon;
    shown.hooks.beforePrompt.tap("DemoPrinter", (prompt) => {
      if (prompt !== null) out(`      the agent receives this prompt: ${prompt}`);
      return prompt;
    });
    await shown.start();
    const backendLabel = opts.agent === "demo" ? "acp, the offline demo agent that comes with culture" : opts.agent;
    out(`[2/5] agent ${nick} connected and joined ${shown.status().channels.join(", ")} (backend: ${backendLabel})`);

    human = await DemoHuman.connect(server.port, "human", "#general", 15_000, humanPassword);
    out(`[3/5] a human, "human", joined #general`);
    const reply = human.waitForMessage((m) => m.nick === nick && m.target === "#general", opts.timeoutMs);
    const text = `@${nick} hello`;
    human.say("#general", text);
    out(`[4/5] <human> ${text}`);
    const answered = await reply.catch(() => {
      throw new CultureError(
        "E_TIMEOUT",
        `The agent did not answer within ${opts.timeoutMs / 1000}s.` + (opts.agent === "demo" ? "" : ` Is the ${opts.agent} agent installed and signed in? Try: culture doctor`),
      );
    });
    out(`      <${answered.nick}> ${answered.text}`);
    await waitIdle(shown);
    const s = shown.status();
    const row: AgentStatusRow = { ...s, nick: s.nick, state: s.circuit_open ? "circuit-open" : s.paused ? "paused" : "running", pid: s.pid, backend: s.backend, activity: s.activity, uptime_seconds: s.uptime_seconds, description: s.description };
    out("[5/5] culture status:");
    out(renderTable([row], process.stdout.columns ?? 120).replace(/^/gm, "      ").trimEnd());
    if (opts.once) return;
    out("");
    const me = "you";
    const myPassword = generatePassword();
    await new AccountStore(accountsFile).add(me, myPassword, "human");
    out(`Talk to the agent yourself from any IRC client. The server requires an account; yours is "${me}",`);
    out(`password ${myPassword} (SASL PLAIN, or the server password ${me}:<password>), for example:`);
    out(`  irssi -c 127.0.0.1 -p ${server.port} -w ${me}:${myPassword} -n ${me}     then:  /join #general   and   @${nick} help`);
    // Listen for Ctrl-C before saying so: until a listener exists, SIGINT's default action
    // (the process dies at once, with no clean-up) applies.
    const stopped = new Promise<void>((resolve) => {
      process.once("SIGINT", resolve);
      process.once("SIGTERM", resolve);
    });
    human.onMessage((m) => {
      if (m.nick !== "human") out(`<${m.nick}${m.target === "#general" ? "" : ` -> ${m.target}`}> ${m.text}`);
    });
    out("Everything said in #general is shown below. Press Ctrl-C to stop.\n");
    await stopped;
    out("\nStopping...");
  } finally {
    await cleanup();
  }
}

/** The agent entry for the chosen backend. */
function agentFor(agent: DemoOptions["agent"], nick: string): Record<string, unknown> {
  const base = { nick, channels: ["#general"], directory: process.cwd() };
  if (agent !== "demo") return { ...base, agent };
  if (!existsSync(DEMO_AGENT)) {
    throw new CultureError(
      "E_AGENT_COMMAND_NOT_FOUND",
      `The offline demo agent is missing from culture's install (${DEMO_AGENT}): this copy of culture is broken.\n` +
        `Reinstall it (npm install -g culture), or use a real agent: culture demo --agent claude|codex|copilot|acp`,
    );
  }
  return { ...base, agent: "acp", acp_command: [process.execPath, DEMO_AGENT] };
}

async function waitIdle(daemon: AgentDaemon): Promise<void> {
  for (let i = 0; i < 100 && daemon.status().activity === "working"; i++) await new Promise((r) => setTimeout(r, 50));
}
