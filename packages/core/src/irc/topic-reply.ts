/**
 * The TOPIC request (get or set) and how its replies become a topic. TOPIC has no
 * end-of-reply numeric (331/332/333 may or may not come), so the request ends at its PING
 * sentinel (see reply-requests.ts). Setting a topic is confirmed by the server's TOPIC echo; a
 * server may not echo a topic that did not change, and then the result is `"query"`: the
 * caller asks for the current topic instead.
 */
import { ircCommandFailed } from "../errors.js";
import { lastParam } from "./irc-line.js";
import type { ReplyRequest } from "./reply-requests.js";

/** A channel topic. */
export interface IrcTopic {
  topic: string | null;
  /** Nick that set it, when the server says. */
  setBy: string | null;
}

/**
 * The TOPIC request for `channel` (sanitised): a query, or with `text` (sanitised) a change.
 * Resolves to the topic, or `"query"` when a change was not echoed; fails with
 * `E_IRC_COMMAND_FAILED` on 403/442/476/479/482.
 */
export function topicRequest(channel: string, text: string | undefined, fold: (name: string) => string): ReplyRequest<IrcTopic | "query"> {
  const key = fold(channel);
  return {
    what: `TOPIC ${channel}`,
    lines: [text === undefined ? `TOPIC ${channel}` : `TOPIC ${channel} :${text}`],
    sentinel: true,
    collect: (finish) => {
      let topic: string | null = null;
      let setBy: string | null = null;
      let echoed = false;
      return {
        onLine: (msg) => {
          const p = msg.params;
          const forUs = (i: number): boolean => fold(p[i] ?? "") === key;
          switch (msg.command) {
            case "332":
              if (!forUs(1)) return false;
              topic = lastParam(p) || null;
              return true;
            case "331":
              if (!forUs(1)) return false;
              topic = null;
              return true;
            case "333":
              if (!forUs(1)) return false;
              setBy = (p[2] ?? "").split("!")[0] || null;
              return true;
            case "TOPIC":
              if (!forUs(0)) return false;
              topic = lastParam(p) || null;
              setBy = msg.nick || null;
              echoed = true;
              return true;
            case "403":
            case "442":
            case "476":
            case "479":
            case "482":
              if (!forUs(1)) return false;
              finish(ircCommandFailed("TOPIC", channel, msg.command, lastParam(p)));
              return true;
            default:
              return false;
          }
        },
        onSentinel: () => finish(text !== undefined && !echoed ? "query" : { topic, setBy }),
      };
    },
  };
}
