/** AWAY: set or clear the away message; clients with away-notify in shared channels are told. */
import type { Connection } from "../connection.js";
import { type IrcMessage, truncateUtf8 } from "../message.js";
import { N } from "../numerics.js";
import type { ServerCore } from "../server-core.js";
import { LIMITS } from "../server-options.js";

/** AWAY [:message] */
export function handleAway(server: ServerCore, client: Connection, msg: IrcMessage): void {
  const text = msg.params[0];
  const away = text !== undefined && text.length > 0 ? truncateUtf8(text, LIMITS.AWAYLEN) : null;
  client.away = away;
  if (away === null) client.numeric(N.RPL_UNAWAY, "You are no longer marked as being away");
  else client.numeric(N.RPL_NOWAWAY, "You have been marked as being away");
  const notice = server.relayFrom(client, "AWAY", away === null ? [] : [away], { trailing: away !== null });
  for (const peer of server.peersOf(client)) if (peer.has("away-notify")) peer.sendBytes(notice.bytesFor(peer.tagBits));
}
