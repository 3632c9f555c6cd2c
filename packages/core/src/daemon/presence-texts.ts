/** The hung watchdog's alert text: one line, what is known, what a person can do. */
import { formatSeconds } from "./presence-state.js";

/** `[STALLED] <nick> has sent no agent event for 5m00s (running Bash) on "<task>". Reply @<nick> abort to stop it.` */
export function stalledText(nick: string, silentSeconds: number, task: string | null, tool: string | null): string {
  const on = task ? ` on "${task.replace(/\s+/g, " ").trim().slice(0, 80)}"` : "";
  const running = tool ? ` (running ${tool})` : "";
  return `[STALLED] ${nick} has sent no agent event for ${formatSeconds(silentSeconds)}${running}${on}. Reply @${nick} abort to stop it.`;
}
