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
  if (config.operators_by_nick) {
    out.push({
      ok: true,
      warning: true,
      name: "operators",
      detail: `operators_by_nick is true: anyone using the nick ${config.operators.join(", ") || "(none listed)"} can resume/abort agents on a server without nick ownership`,
      fix: "use a server with accounts (culture's embedded server, or a network with NickServ) and remove operators_by_nick",
    });
  } else {
    out.push({
      ok: true,
      name: "operators",
      detail: config.operators.length ? `by IRC account: ${config.operators.join(", ")}` : "none: nobody on IRC may resume/abort (culture resume and culture pause still work)",
    });
  }
  for (const agent of config.agents) {
    const allow = agent.allow ?? config.allow ?? "auto";
    if (allow === "everyone") {
      out.push({
        ok: true,
        warning: true,
        name: `${agent.nick}: allow`,
        detail: "everyone: any IRC user who can reach the agent can prompt it (and so use its shell)",
        fix: "allow: accounts, or a list of accounts",
      });
    }
  }
  return out;
}
