import { startServer, type IrcServer } from "@culture/server";
import { eventually, ircReplyScript } from "@culture/core/testing";
import { afterAll, beforeAll, it } from "vitest";
import { human, privmsg, saidTo, startRealClaude } from "./real-claude-harness.js";
const NICK = "spark-claude";
let irc: IrcServer;
beforeAll(async () => { irc = await startServer({ host: "127.0.0.1", port: 0, stateDir: null }); });
afterAll(async () => { await irc.close(); });
it("explore", async () => {
  const olga = await human(irc.port, "olga");
  const a = await startRealClaude({ ircPort: irc.port, nick: NICK, config: { restart: { delay_seconds: 0.2, max_crashes: 10, window_seconds: 300 } },
    script: ircReplyScript({ before: (req) => (/^\[IRC .* stall/.test(req.lastUserText) ? { hang: true } : undefined) }) });
  try {
    olga.send(`PRIVMSG #test :@${NICK} stall a`);
    await eventually(() => a.api.turns().some((t) => /stall a/.test(t.lastUserText)), "stall", 30000);
    olga.send(`PRIVMSG #test :@${NICK} abort`);
    await eventually(() => a.d.daemon.status().activity === "idle", "idle", 30000);
    console.log("after abort pids", a.claudePids(), a.d.daemon.status());
    const [pid] = a.claudePids();
    process.kill(pid!, "SIGKILL");
    await new Promise((r) => setTimeout(r, 3000));
    console.log(saidTo(olga.lines, NICK, "#alerts"), saidTo(olga.lines, NICK, "#test"));
    console.log(a.lines.filter((l) => /WARN|ERROR|exit|interrupt/i.test(l)).join("\n"));
  } finally { await a.stop(); await olga.close(); }
});
