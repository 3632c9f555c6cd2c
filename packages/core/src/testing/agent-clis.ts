/**
 * Finds the real agent CLIs that scripts/install-agent-clis.mjs installed (pinned in
 * scripts/agent-clis.json). A real-CLI suite calls this and fails with a clear message when
 * the CLI is missing: it never skips and never falls back to a fake.
 */
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** One pinned agent CLI, installed. */
export interface AgentCli {
  name: string;
  package: string;
  version: string;
  /** The install folder (it has node_modules/). */
  dir: string;
  /** The package's own folder: `<dir>/node_modules/<package>`. */
  packageDir: string;
  /** The CLI's bin (`<dir>/node_modules/.bin/<bin>`), or null for a library (copilot). */
  bin: string | null;
}

interface Pin {
  package: string;
  version: string;
  bin: string | null;
}

/** The folder the CLIs are cached in (CULTURE_AGENT_CLI_CACHE, default ~/.cache/culture/agent-clis). */
export function agentCliCache(env: NodeJS.ProcessEnv = process.env): string {
  return env.CULTURE_AGENT_CLI_CACHE ?? join(homedir(), ".cache", "culture", "agent-clis");
}

/**
 * The installed agent CLI `name` (claude, codex, opencode, gemini, copilot).
 * @throws when it is not pinned or not installed, saying the command that installs it.
 */
export function agentCli(name: string): AgentCli {
  const pinsFile = findPinsFile();
  const pins = JSON.parse(readFileSync(pinsFile, "utf8")) as Record<string, Pin>;
  const pin = pins[name];
  if (!pin || name.startsWith("$")) throw new Error(`agent CLI "${name}" is not pinned in ${pinsFile}`);
  const dir = join(agentCliCache(), `${name}-${pin.version}`);
  if (!existsSync(join(dir, ".installed"))) {
    throw new Error(
      `The real ${pin.package}@${pin.version} is not installed (looked in ${dir}).\n` +
        `Install it:  node scripts/install-agent-clis.mjs ${name}   (scripts/install-test-deps.sh installs everything the tests need)`,
    );
  }
  return {
    name,
    package: pin.package,
    version: pin.version,
    dir,
    packageDir: join(dir, "node_modules", pin.package),
    bin: pin.bin ? join(dir, "node_modules", ".bin", pin.bin) : null,
  };
}

function findPinsFile(): string {
  const starts = [process.cwd(), dirname(fileURLToPath(import.meta.url))];
  for (const start of starts) {
    for (let d = start; ; d = dirname(d)) {
      const f = join(d, "scripts", "agent-clis.json");
      if (existsSync(f)) return f;
      if (dirname(d) === d) break;
    }
  }
  throw new Error("scripts/agent-clis.json not found above the current folder: real agent CLI suites run from a culture checkout");
}
