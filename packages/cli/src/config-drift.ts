/**
 * Config drift for `culture status` and `culture doctor`: a running daemon reports the
 * fingerprint of the config it was started with (`started_config`, core's config-fingerprint.ts);
 * this compares it with the file as it is now and names the keys that changed. The file read is
 * the one the daemon loaded (which may not be the config found from the cwd).
 */
import { configDrift, describeDrift, isConfigFingerprint, loadConfig, type CultureConfig } from "@culture/core";

/** What drift comes to for one daemon. */
export interface DriftResult {
  /** The keys that changed; [] when none. */
  changed: string[];
  /** The warning line, or null. */
  warning: string | null;
  /** Why it could not be checked (the file no longer loads), or null. */
  error: string | null;
}

/** Reads each config file at most once per command. */
export class DriftChecker {
  private readonly configs = new Map<string, Promise<CultureConfig | Error>>();

  constructor(current: CultureConfig | null) {
    if (current?.filepath) this.configs.set(current.filepath, Promise.resolve(current));
  }

  /** Drift of the daemon whose status is `status`, or null when it reports no fingerprint (an older daemon, a config built in code). */
  async check(nick: string, status: Record<string, unknown> | null | undefined): Promise<DriftResult | null> {
    const started = status?.started_config;
    if (!isConfigFingerprint(started) || !started.file) return null;
    const config = await this.load(started.file);
    if (config instanceof Error) {
      return { changed: [], warning: `${nick}: cannot compare with the config it was started with: ${config.message.split("\n")[0]}`, error: config.message };
    }
    const agent = config.agents.find((a) => a.nick.toLowerCase() === nick.toLowerCase());
    const changed = configDrift(started, config, agent);
    const line = describeDrift(nick, changed);
    return { changed, warning: line && `${nick}: ${line}`, error: null };
  }

  private load(file: string): Promise<CultureConfig | Error> {
    let p = this.configs.get(file);
    if (!p) {
      p = loadConfig({ configPath: file }).catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));
      this.configs.set(file, p);
    }
    return p;
  }
}
