/**
 * CHATHISTORY (IRCv3 draft/chathistory): LATEST, BEFORE, AFTER, AROUND, BETWEEN and TARGETS,
 * answered from the history store in a `chathistory` batch. Only channel history is kept,
 * and only members may read it (a client rejoins, then asks for what it missed); DMs are not
 * stored, because nicks are not accounts and a later holder of a nick must not read them.
 */
import { isChannelName } from "../casemapping.js";
import type { Connection } from "../connection.js";
import type { HistoryEntry } from "../history-store.js";
import { parseHistoryRef } from "../history-store.js";
import type { IrcMessage } from "../message.js";
import { RelayedMessage } from "../outgoing.js";
import type { ServerCore } from "../server-core.js";
import { LIMITS } from "../server-options.js";

let batchCounter = 0;

/** CHATHISTORY <subcommand> <target> <ref...> <limit> */
export function handleChathistory(server: ServerCore, client: Connection, msg: IrcMessage): void {
  const [rawSub, ...args] = msg.params as [string, ...string[]];
  const sub = rawSub.toUpperCase();
  const need = sub === "BETWEEN" ? 4 : 3;
  if (!["LATEST", "BEFORE", "AFTER", "AROUND", "BETWEEN", "TARGETS"].includes(sub)) {
    return client.fail("CHATHISTORY", "INVALID_PARAMS", rawSub, "Unknown subcommand");
  }
  if (args.length < need) return client.fail("CHATHISTORY", "NEED_MORE_PARAMS", sub, "Insufficient parameters");
  const limit = parseLimit(args[need - 1]!);
  if (limit === null) return client.fail("CHATHISTORY", "INVALID_PARAMS", sub, args[need - 1]!, "Invalid limit");

  if (sub === "TARGETS") {
    const from = parseHistoryRef(args[0]!);
    const to = parseHistoryRef(args[1]!);
    if (from?.kind !== "timestamp" || to?.kind !== "timestamp") {
      return client.fail("CHATHISTORY", "INVALID_PARAMS", sub, "Invalid timestamp");
    }
    const found = server.history.targets(from.time, to.time, Number.MAX_SAFE_INTEGER).filter((t) => server.findChannel(t.target)?.has(client));
    inBatch(client, "draft/chathistory-targets", [], (batch) => {
      for (const t of found.slice(0, limit)) {
        client.send(`${batch ? `@batch=${batch} ` : ""}:${server.opts.name} CHATHISTORY TARGETS ${t.target} ${new Date(t.time).toISOString()}`);
      }
    });
    return;
  }

  const target = args[0]!;
  const channel = isChannelName(target) ? server.findChannel(target) : undefined;
  if (!channel || !channel.has(client)) {
    return client.fail("CHATHISTORY", "INVALID_TARGET", sub, target, "Messages could not be retrieved");
  }
  const refText = args[1]!;
  const ref = parseHistoryRef(refText);
  let entries: HistoryEntry[];
  if (sub === "LATEST") {
    if (ref === null && refText !== "*") return client.fail("CHATHISTORY", "INVALID_PARAMS", sub, refText, "Invalid message reference");
    entries = server.history.latest(channel.name, ref, limit);
  } else {
    if (ref === null) return client.fail("CHATHISTORY", "INVALID_PARAMS", sub, refText, "Invalid message reference");
    if (sub === "BEFORE") entries = server.history.before(channel.name, ref, limit);
    else if (sub === "AFTER") entries = server.history.after(channel.name, ref, limit);
    else if (sub === "AROUND") entries = server.history.around(channel.name, ref, limit);
    else {
      const ref2 = parseHistoryRef(args[2]!);
      if (ref2 === null) return client.fail("CHATHISTORY", "INVALID_PARAMS", sub, args[2]!, "Invalid message reference");
      entries = server.history.between(channel.name, ref, ref2, limit);
    }
  }
  inBatch(client, "chathistory", [channel.name], (batch) => {
    for (const e of entries) {
      const line = new RelayedMessage(
        e.source,
        e.command,
        [e.target, e.text],
        { time: new Date(e.time).toISOString(), msgid: e.msgid, account: e.account, clientTags: e.clientTags },
        true,
      ).lineFor(client.tagBits, batch ?? undefined);
      client.send(line);
    }
  });
}

/** Runs `body` between BATCH +ref/-ref lines when the client has `batch`, else bare. */
function inBatch(client: Connection, type: string, params: string[], body: (batch: string | null) => void): void {
  if (!client.has("batch")) return body(null);
  const ref = `h${(++batchCounter).toString(36)}`;
  client.fromServer("BATCH", `+${ref}`, type, ...params);
  body(ref);
  client.fromServer("BATCH", `-${ref}`);
}

function parseLimit(text: string): number | null {
  if (!/^\d{1,9}$/.test(text)) return null;
  const n = Number(text);
  return n > 0 ? Math.min(n, LIMITS.CHATHISTORY) : null;
}
