/**
 * `culture doctor`'s config drift check: each running agent of the config still runs with the
 * config as it is now. A change to agents.yaml takes effect only when the daemon restarts, so a
 * difference is a warning naming the changed keys and `culture restart <nick>`. Agents that are
 * not running are not checked.
 */
import type { CultureConfig, DoctorCheck } from "@culture/core";
import { inspectAgent } from "../agents.js";
import { DriftChecker } from "../config-drift.js";

/** One check per running agent whose daemon reports what it was started with. */
export async function driftChecks(config: CultureConfig): Promise<DoctorCheck[]> {
  const checker = new DriftChecker(config);
  const out: DoctorCheck[] = [];
  for (const agent of config.agents) {
    const state = await inspectAgent(agent.nick);
    const drift = state.answering ? await checker.check(agent.nick, state.status) : null;
    if (!drift) continue;
    const name = `${agent.nick}: config`;
    if (drift.error) out.push({ ok: false, name, detail: `cannot compare with the config it was started with: ${drift.error.split("\n")[0]}`, fix: "culture config check" });
    else if (drift.changed.length === 0) out.push({ ok: true, name, detail: "runs with agents.yaml as it is now" });
    else {
      const [detail, fix] = drift.warning!.replace(`${agent.nick}: `, "").split(": culture ");
      out.push({ ok: true, warning: true, name, detail: detail!, fix: `culture ${fix}` });
    }
  }
  return out;
}
