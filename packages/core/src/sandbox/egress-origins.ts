/**
 * The model API origins an agent in a `network: off` sandbox may still reach (docs/sandbox.md,
 * "network: off"). Inside `bwrap --unshare-net` only loopback exists; the egress bridge
 * ({@link startEgressProxy}) lets through exactly these `host:port` pairs and refuses the rest.
 *
 * The list is the backend's default API host(s), the base URLs in the agent's environment
 * (ANTHROPIC_BASE_URL, OPENAI_BASE_URL, GOOGLE_GEMINI_BASE_URL ...), and the origins the owner
 * names in `sandbox.allow` (for base URLs the agent reads from its own config files, such as
 * Codex's config.toml or OpenCode's opencode.json).
 */
import { isIP } from "node:net";

/** One `host:port` the bridge lets through. `host` is lower-case, without brackets or a trailing dot. */
export interface EgressOrigin {
  host: string;
  port: number;
}

/** The default model API hosts of each built-in backend (the agent CLIs' own defaults). */
const DEFAULT_ORIGINS: Readonly<Record<string, readonly string[]>> = {
  claude: ["https://api.anthropic.com"],
  codex: ["https://api.openai.com", "https://chatgpt.com"],
  copilot: ["https://api.githubcopilot.com", "https://api.github.com", "https://api.individual.githubcopilot.com"],
  // acp runs several agents; which one is known only from its command line.
  acp: [],
};

/** The default API hosts of the ACP agents, by the program name in `acp_command`. */
const ACP_DEFAULT_ORIGINS: Readonly<Record<string, readonly string[]>> = {
  gemini: ["https://generativelanguage.googleapis.com"],
  opencode: [],
  copilot: ["https://api.githubcopilot.com", "https://api.github.com", "https://api.individual.githubcopilot.com"],
};

/** Environment variables that hold a model API base URL (any agent: an unused one costs nothing). */
const BASE_URL_VARIABLES = [
  "ANTHROPIC_BASE_URL",
  "OPENAI_BASE_URL",
  "OPENAI_API_BASE",
  "GOOGLE_GEMINI_BASE_URL",
  "GEMINI_BASE_URL",
  "COPILOT_API_URL",
] as const;

/**
 * Parses one origin: a URL (`https://api.anthropic.com`, `http://127.0.0.1:8080/v1`) or a bare
 * `host:port`. Throws a plain Error naming the bad text (the config layer turns it into its own).
 */
export function parseEgressOrigin(text: string): EgressOrigin {
  const trimmed = text.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `tcp://${trimmed}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new Error(`"${text}" is not a URL or host:port`);
  }
  if (url.username || url.password) throw new Error(`"${text}" has a user name or password in it`);
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  const host = normaliseHost(url.hostname);
  if (!host) throw new Error(`"${text}" has no host`);
  const port = url.port ? Number(url.port) : scheme === "https" ? 443 : scheme === "http" ? 80 : NaN;
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`"${text}" has no port (write host:port, or an http:// or https:// URL)`);
  return { host, port };
}

/** `host:port` as the proxy's log lines and the docs write it (`[::1]:8080` for IPv6). */
export function originText(o: EgressOrigin): string {
  return `${o.host.includes(":") ? `[${o.host}]` : o.host}:${o.port}`;
}

/** Lower-case, no brackets, no trailing dot: the one spelling allow-list checks compare. */
export function normaliseHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith("[") && h.endsWith("]")) h = h.slice(1, -1);
  while (h.endsWith(".")) h = h.slice(0, -1);
  return h;
}

/** True for an origin on this machine's loopback (the sandbox has its own loopback: the forwarder tunnels these). */
export function isLoopbackHost(host: string): boolean {
  const h = normaliseHost(host);
  if (h === "localhost") return true;
  if (isIP(h) === 4) return h.startsWith("127.");
  if (isIP(h) === 6) return h === "::1";
  return false;
}

/** What {@link modelApiOrigins} reads. */
export interface ModelApiOriginsInput {
  /** The backend name (`claude`, `codex`, `acp`, `copilot`, or a third party's). */
  backend: string;
  /** The agent's environment (its `env:` over the daemon's). */
  env: Record<string, string | undefined>;
  /** The agent's command line where the backend has one (`acp_command`), to tell ACP agents apart. */
  command?: readonly string[];
  /** `sandbox.allow`: more origins the owner names. */
  allow?: readonly string[];
}

/**
 * The origins an agent may reach with `network: off`, de-duplicated, in a stable order:
 * the base URLs from its environment first, then `sandbox.allow`, then the backend's defaults.
 */
export function modelApiOrigins(input: ModelApiOriginsInput): EgressOrigin[] {
  const texts: string[] = [];
  for (const name of BASE_URL_VARIABLES) {
    const value = input.env[name];
    if (value) texts.push(value);
  }
  texts.push(...(input.allow ?? []));
  texts.push(...(DEFAULT_ORIGINS[input.backend] ?? []));
  if (input.backend === "acp" && input.command?.[0]) {
    const program = input.command[0].split("/").at(-1)!;
    texts.push(...(ACP_DEFAULT_ORIGINS[program] ?? []));
  }
  const seen = new Set<string>();
  const out: EgressOrigin[] = [];
  for (const text of texts) {
    const o = parseEgressOrigin(text);
    const key = originText(o);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(o);
  }
  return out;
}

/** True when `host:port` is one of `allow` (after normalising the host). */
export function isAllowedOrigin(allow: readonly EgressOrigin[], host: string, port: number): boolean {
  const h = normaliseHost(host);
  return allow.some((o) => o.host === h && o.port === port);
}
