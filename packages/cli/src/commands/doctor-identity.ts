/**
 * `culture doctor`'s identity checks: who can reach and command the agents. Settings that
 * trade safety for convenience pass, but as warnings that say what they allow.
 */
import { LOCAL_HOSTS, type CultureConfig, type DoctorCheck } from "@culture/core";

/** Warnings for `server.open`, nick-matched operators, and open `allow:` lists. */
export function identityChecks(config: CultureConfig): DoctorCheck[] {
  const out: DoctorCheck[] = [];
  const local = LOCAL_HOSTS.has(config.server.host.toLowerCase());
  if (config.server.open && local) {
    out.push({
      ok: true,
      warning: true,
      name: "embedded server accounts",
      detail: "server.open is true: anyone who can reach the port connects without an account (other local users included)",
      fix: "remove server.open and give each human an account: culture server user add <name>",
    });
  } else if (local) {
    out.push({ ok: true, name: "embedded server accounts", detail: "required (agents use generated credentials; humans: culture server user add <name>)" });
  }
  return out;
}
