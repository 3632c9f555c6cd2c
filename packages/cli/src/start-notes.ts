/**
 * The lines `culture start` prints about a daemon that came up but is not all well: its agent
 * cannot run (not signed in), or the server refused it channels. The detached parent prints
 * them from the daemon's readiness report, `--foreground` from the daemon itself.
 */
import { describeRefusal, type ChannelRefusal } from "@culture/core/config";

/**
 * The stderr lines of a daemon that is up but whose agent cannot run (not signed in): what is
 * wrong with its fix, that the daemon stays up and tells askers, and the command after the fix.
 */
export function cannotRunNote(nick: string, pid: number, why: string, refused: ChannelRefusal[] | undefined): string {
  const [first, ...fix] = why.split("\n").map((l) => l.trim()).filter(Boolean);
  const lines = [`${nick}: cannot run its agent: ${first}`, ...fix.map((l) => `  ${l}`)];
  const { warning } = refusedNote(nick, refused);
  if (warning) lines.push(warning);
  lines.push(`The daemon (pid ${pid}) stays up and tells whoever addresses ${nick} why; once that is fixed: culture resume ${nick}`);
  return lines.join("\n");
}

/** The stderr lines for channels the server refused the agent, or nothing. */
export function refusedNote(nick: string, refused: ChannelRefusal[] | undefined): { warning?: string } {
  if (!refused?.length) return {};
  const lines = refused.map((r) => `${nick}: the IRC server refused to let it join ${describeRefusal(r)}`);
  lines.push(`${nick} runs, but nobody in ${refused.map((r) => r.channel).join(", ")} can reach it: a channel operator can invite it or lift the mode, then restart it (culture restart ${nick}). culture status shows it.`);
  return { warning: lines.join("\n") };
}
