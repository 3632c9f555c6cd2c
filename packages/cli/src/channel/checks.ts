/**
 * Checks that turn silent no-ops of `culture channel` into failures (exit 1), each asked of
 * the daemon with one more IPC request, only where the main answer cannot tell:
 *
 * - `send <nick>`: IRC drops a message to a nick that is not online (the server's 401 comes
 *   later, to nobody), so the nick is looked up with WHO first;
 * - `read <#channel>` with nothing to read: the daemon reads an empty buffer for a channel the
 *   agent is not in, so the joined channels are asked for.
 */
import type { IpcClient } from "@culture/core/ipc-client";

/** What to print (then exit 1) when a send would go nowhere, or null to go ahead. */
export async function checkBeforeSend(client: IpcClient, fields: Record<string, unknown>): Promise<string | null> {
  const target = typeof fields.channel === "string" ? fields.channel : "";
  if (!target || /^[#&]/.test(target) || target.startsWith("DM:")) return null;
  const res = await client.request("irc_who", { target });
  if (!res.ok) return null; // cannot tell: let the send decide
  const members = Array.isArray(res.data?.members) ? (res.data.members as Array<{ nick?: unknown }>) : [];
  if (members.some((m) => typeof m.nick === "string" && m.nick.toLowerCase() === target.toLowerCase())) return null;
  return `culture channel send: ${target} is not on IRC now (WHO found no one by that nick); nothing was sent.\n` + `See who is around: culture channel who '#general'\n`;
}

/** What to print (then exit 1) when a read found nothing because the agent is not in the channel. */
export async function checkAfterRead(client: IpcClient, data: Record<string, unknown>): Promise<string | null> {
  const channel = typeof data.channel === "string" ? data.channel : "";
  const messages = Array.isArray(data.messages) ? data.messages : [];
  if (!/^[#&]/.test(channel) || messages.length > 0 || (typeof data.skipped === "number" && data.skipped > 0)) return null;
  const res = await client.request("irc_channels", {});
  if (!res.ok) return null;
  const joined = (Array.isArray(res.data?.channels) ? (res.data.channels as Array<Record<string, unknown>>) : []).map((c) => String(c.channel ?? c.name ?? ""));
  if (joined.some((c) => c.toLowerCase() === channel.toLowerCase())) return null;
  return (
    `culture channel read: not in channel ${channel}` +
    (joined.length ? ` (joined: ${joined.join(", ")})` : " (not in any channel)") +
    `\nJoin it with: culture channel join '${channel}'\n`
  );
}
