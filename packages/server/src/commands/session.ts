/** PING, PONG and QUIT. Liveness itself is tracked by the connection: any input counts. */
import type { Connection } from "../connection.js";
import type { IrcMessage } from "../message.js";
import { N } from "../numerics.js";
import type { ServerCore } from "../server-core.js";

/** PING <token> -> `:server PONG server :token` */
export function handlePing(server: ServerCore, client: Connection, msg: IrcMessage): void {
  const token = msg.params[0];
  if (token === undefined || token.length === 0) {
    client.numeric(N.ERR_NOORIGIN, "No origin specified");
    return;
  }
  client.fromServerText("PONG", server.opts.name, token);
}

/** PONG: nothing to do beyond the activity the connection already noted. */
export function handlePong(): void {}

/** QUIT [:reason] — peers see `Quit: reason`. */
export function handleQuit(server: ServerCore, client: Connection, msg: IrcMessage): void {
  const reason = msg.params[0];
  const text = reason ? `Quit: ${reason}` : "Client Quit";
  server.disconnect(client, text, { quitMessage: text });
}
