/**
 * irc-framework's own command handlers throw on some malformed lines (a `PRIVMSG` without
 * parameters), and a throw there escapes from the socket's data handler and kills the
 * process: one bad line from a server or bouncer would take the agent down. This wraps the
 * client's dispatcher so each line's dispatch is contained, logged and skipped.
 */
import type ircFramework from "irc-framework";
import { errorMessage } from "../errors.js";
import type { Logger } from "../logger.js";

type IrcClient = InstanceType<typeof ircFramework.Client>;
type RawMessage = ircFramework.IrcMessage;

/**
 * Wraps `client`'s internal command dispatcher (irc-framework 4.14's `command_handler`) so a
 * handler that throws on a line logs a warning on `log` instead of crashing the process. Does
 * nothing when the client has no such dispatcher.
 */
export function containHandlerErrors(client: IrcClient, log: Logger): void {
  const handler = (client as unknown as { command_handler?: { dispatch(message: RawMessage): void } }).command_handler;
  if (!handler) return;
  const dispatch = handler.dispatch.bind(handler);
  handler.dispatch = (message: RawMessage): void => {
    try {
      dispatch(message);
    } catch (err) {
      log.warn("skipped a malformed IRC line", { command: message.command, params: message.params.length, error: errorMessage(err) });
    }
  };
}
