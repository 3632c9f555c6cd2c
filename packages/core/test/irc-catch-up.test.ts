/**
 * Catch-up after a reconnect: the rules in CatchUp (what counts as missed) and what each real
 * server offers (`catchUpSupport`). The end-to-end proof, mentions missed during drops and
 * server restarts delivered exactly once, is the chaos suite (test/chaos/).
 */
import { startServer } from "@culture/server";
import { afterEach, describe, expect, it } from "vitest";
import { serverSchema } from "../src/config/schema.js";
import { CatchUp } from "../src/irc/catch-up.js";
import { IrcTransport } from "../src/irc/irc-transport.js";
import { silentLogger } from "../src/logger.js";
import { startIrcServer } from "../src/testing/irc-servers.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

describe("CatchUp rules", () => {
  const make = (support: "chathistory" | "join-replay" | "none") => {
    const sent: string[] = [];
    const c = new CatchUp({ send: (l) => sent.push(l), logger: silentLogger });
    c.detect(support === "chathistory", support === "join-replay" ? ["b", "k", "Hl", "imnt"] : ["b", "k", "l", "imnt"]);
    return { c, sent };
  };

  it("ignores history replayed at the first join, and asks for nothing", () => {
    const { c, sent } = make("join-replay");
    c.onJoin("#c", "#c", 10_000);
    expect(c.acceptReplay("#c", 9_000)).toBe(false);
    expect(c.acceptReplay("#c", 20_000)).toBe(false);
    c.onHistoryEnd("#c");
    expect(c.acceptReplay("#c", 20_000)).toBe(false);
    expect(sent).toEqual([]);
  });

  it("on a rejoin accepts lines from one second before the last line seen, and asks the server when it can", () => {
    const { c, sent } = make("chathistory");
    c.onJoin("#c", "#C", 10_000);
    c.noteSeen("#c", 15_500);
    c.onDisconnect();
    c.onJoin("#c", "#C", 30_000);
    expect(sent).toEqual([`CHATHISTORY AFTER #C timestamp=${new Date(14_500).toISOString()} 200`]);
    expect(c.acceptReplay("#c", 14_499)).toBe(false);
    expect(c.acceptReplay("#c", 15_000)).toBe(true); // a replay time cut to the second
    // Live lines after the rejoin do not move the catch-up point.
    c.noteSeen("#c", 31_000);
    expect(c.acceptReplay("#c", 20_000)).toBe(true);
  });

  it("treats a join after PART or KICK as a first join", () => {
    const { c } = make("join-replay");
    c.onJoin("#c", "#c", 10_000);
    c.forget("#c");
    c.onJoin("#c", "#c", 20_000);
    expect(c.acceptReplay("#c", 19_000)).toBe(false);
  });

  it("detects the support from the CAP and the channel modes", () => {
    expect(make("chathistory").c.support).toBe("chathistory");
    expect(make("join-replay").c.support).toBe("join-replay");
    expect(make("none").c.support).toBe("none");
  });
});

describe("catchUpSupport on real servers", () => {
  it.each([
    ["embedded", "chathistory"],
    ["inspircd", "join-replay"],
    ["ngircd", "none"],
  ] as const)("%s offers %s", async (kind, expected) => {
    let port: number;
    if (kind === "embedded") {
      const s = await startServer({ host: "127.0.0.1", port: 0, stateDir: null });
      cleanups.push(() => s.close());
      port = s.port;
    } else {
      const s = await startIrcServer(kind);
      cleanups.push(() => s.stop());
      port = s.port;
    }
    const t = new IrcTransport({ server: serverSchema.parse({ host: "127.0.0.1", port }), nick: "probe-bot", channels: ["#c"], logger: silentLogger });
    cleanups.push(() => t.close());
    await t.connect();
    expect(t.catchUpSupport).toBe(expected);
  });
});
