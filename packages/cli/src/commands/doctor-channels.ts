/**
 * `culture doctor`'s channel check: every running agent is in every channel agents.yaml gives
 * it. A channel the IRC server refused (invite-only, banned, bad key, full, needs an account,
 * no such channel) fails, naming the channel and the server's reason; an agent that is not
 * running is not checked here (the stale-files check covers what it left behind).
 */
import type { CultureConfig, DoctorCheck } from "@culture/core";
import { describeRefusal, type ChannelRefusal } from "@culture/core";
import { inspectAgent } from "../agents.js";

/** One check per running agent: its configured channels are joined. */
export async function channelChecks(config: CultureConfig): Promise<DoctorCheck[]> {
  const states = await Promise.all(config.agents.map(async (a) => ({ agent: a, state: await inspectAgent(a.nick) })));
  const out: DoctorCheck[] = [];
  for (const { agent, state } of states) {
    const status = state.answering ? state.status : null;
    if (!status) continue;
    const name = `${agent.nick}: channels`;
    const refused = (Array.isArray(status.channels_refused) ? status.channels_refused : []) as ChannelRefusal[];
    const joined = new Set((Array.isArray(status.channels) ? (status.channels as string[]) : []).map((c) => c.toLowerCase()));
    const refusedNames = new Set(refused.map((r) => r.channel.toLowerCase()));
    const missing = agent.channels.filter((c) => !joined.has(c.toLowerCase()) && !refusedNames.has(c.toLowerCase()));
    if (refused.length) {
      out.push({
        ok: false,
        name,
        detail: `the IRC server refused to let ${agent.nick} join ${refused.map(describeRefusal).join(", ")}`,
        fix: `ask an operator of ${refused.map((r) => r.channel).join(", ")} to invite ${agent.nick} or lift the mode (e.g. /mode ${refused[0]!.channel} -i), then: culture restart ${agent.nick}`,
      });
    } else if (missing.length && status.connected === true) {
      out.push({ ok: false, name, detail: `${agent.nick} is not in ${missing.join(", ")}`, fix: `culture logs ${agent.nick} says why; culture restart ${agent.nick} rejoins` });
    } else {
      out.push({ ok: true, name, detail: `in ${agent.channels.join(", ") || "no channels"}` });
    }
  }
  return out;
}
