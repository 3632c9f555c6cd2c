/**
 * `culture doctor`'s identity checks: who can reach and command the agents. Settings that
 * trade safety for convenience pass, but as warnings that say what they allow.
 */
import type { CultureConfig, DoctorCheck } from "@culture/core";

/**
 * Warnings for nick-matched operators and open `allow:` lists. Whether the server lets clients
 * in without an account is asked of the running server (doctor-server-mode.ts).
 */
export function identityChecks(config: CultureConfig): DoctorCheck[] {
  const out: DoctorCheck[] = [];
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
