/**
 * The environment of the Copilot runtime: the daemon's (which has CULTURE_NICK, so the
 * agent's shell tools can run `culture channel`), with the agent entry's `env:` over it.
 * The SDK replaces the child's environment with it, so it must be complete.
 */
export function runtimeEnv(base: Record<string, string | undefined>, extra: Record<string, string> = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries({ ...base, ...extra })) if (value !== undefined) out[key] = value;
  return out;
}
