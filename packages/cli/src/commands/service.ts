/**
 * `culture service print <nick>`: a systemd user unit that runs one agent's daemon in the
 * foreground (`culture start <nick> --foreground --config <abs>`), restarted on failure, its
 * log in the journal. docs/systemd.md explains installing and enabling it.
 */
import { dirname } from "node:path";
import type { Command } from "commander";
import { loadConfig } from "@culture/core";
import { cultureHome } from "@culture/core/paths";
import { configOption } from "../options.js";
import { findAgent } from "../agents.js";
import { daemonEnv, daemonNodeFlags } from "../daemon-flags.js";

/** Registers `culture service print`. */
export function registerService(program: Command): void {
  const service = program.command("service").description("run agents under a service manager (systemd)");
  service
    .command("print")
    .description("print a systemd user unit that runs one agent (see docs/systemd.md)")
    .argument("<nick>", "the agent")
    .action(async (nick: string, _opts: unknown, command: Command) => {
      const configPath = configOption(command);
      const config = await loadConfig(configPath ? { configPath } : {});
      const agent = findAgent(config, nick);
      process.stdout.write(
        systemdUnit({
          nick: agent.nick,
          configFile: config.filepath!,
          node: process.execPath,
          nodeFlags: daemonNodeFlags(),
          env: daemonEnv(),
          script: process.argv[1]!,
          cultureHome: cultureHome(),
          path: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
        }),
      );
    });
}

/** What {@link systemdUnit} needs: absolute paths, because a unit has no shell and a minimal PATH. */
export interface SystemdUnitInput {
  nick: string;
  configFile: string;
  /** The node binary. */
  node: string;
  /** Node flags for the daemon (what `culture start` gives a detached daemon: a small young generation). */
  nodeFlags: string[];
  /** culture's entry script. */
  script: string;
  cultureHome: string;
  /** PATH for the agent CLIs (claude, codex, ...) the daemon starts. */
  path: string;
  /** More of the daemon's environment (daemon-flags.ts daemonEnv). */
  env?: Record<string, string>;
}

/** The unit file text. */
export function systemdUnit(u: SystemdUnitInput): string {
  const arg = (s: string) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `"${s.replace(/(["\\])/g, "\\$1")}"`);
  const env = (k: string, v: string) => `Environment=${arg(`${k}=${v}`)}`;
  return `# culture agent ${u.nick}: written by \`culture service print ${u.nick}\`.
# Install: see docs/systemd.md (save as ~/.config/systemd/user/culture-${u.nick}.service,
# then: systemctl --user daemon-reload && systemctl --user enable --now culture-${u.nick})
[Unit]
Description=culture agent ${u.nick}
After=network-online.target
Wants=network-online.target

[Service]
Type=simple
WorkingDirectory=${arg(dirname(u.configFile))}
${env("CULTURE_HOME", u.cultureHome)}
${env("PATH", u.path)}
${Object.entries(u.env ?? {})
  .map(([k, v]) => `${env(k, v)}\n`)
  .join("")}ExecStart=${[u.node, ...u.nodeFlags].map(arg).join(" ")} ${arg(u.script)} start ${arg(u.nick)} --foreground --config ${arg(u.configFile)}
# The daemon stops its agent and leaves IRC on SIGTERM; the rest of the group is killed after the timeout.
KillMode=mixed
TimeoutStopSec=30
Restart=on-failure
RestartSec=5

[Install]
WantedBy=default.target
`;
}
