/**
 * `culture top` in a real terminal: tmux runs the built CLI against two real detached daemons
 * (echo backend) on the embedded IRC server; the test reads the screen with capture-pane and
 * presses keys with send-keys. The view shows the running tool with its elapsed time, and the
 * keys pause, resume and abort through the control socket. Build first (`npm run build`).
 */
import { execFileSync, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type IrcServer } from "@culture/server";
import { connectRawClient, type RawIrcClient } from "@culture/core/testing";
import { eventually, MAIN, makeFleet, type Fleet } from "./fleet-harness.js";

const SOCKET = `culture-top-${process.pid}`;
const SESSION = "top";

let server: IrcServer;
let fleet: Fleet;
let human: RawIrcClient;

const tmux = (...args: string[]) => execFileSync("tmux", ["-L", SOCKET, ...args], { env: fleet.env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
const screen = () => tmux("capture-pane", "-p", "-t", SESSION);
const waitScreen = (match: RegExp, what: string) => eventually(() => (match.test(screen()) ? screen() : null), what, 20_000);

beforeAll(async () => {
  server = await startServer({ port: 0, stateDir: null });
  fleet = makeFleet(server.port, ["spark-a", "spark-b"]);
  const start = await fleet.culture(["start", "--all"]);
  expect(start.code, start.stderr).toBe(0);
  human = await connectRawClient(server.port, "alice");
  await human.join("#test");
});
afterAll(async () => {
  try {
    tmux("kill-server");
  } catch {
    /* already gone */
  }
  await human?.close().catch(() => undefined);
  await fleet?.culture(["stop", "--all"]).catch(() => undefined);
  await fleet?.cleanup();
  await server?.close();
});

describe("culture top in tmux", { timeout: 120_000 }, () => {
  it("shows every agent live, the running tool and its elapsed time, and pauses, resumes and aborts with keys", async () => {
    const gate = join(fleet.home, "gate");
    human.send(`PRIVMSG #test :@spark-a exec sh -c 'while [ ! -e ${gate} ]; do sleep 0.05; done'`);
    tmux("new-session", "-d", "-s", SESSION, "-x", "150", "-y", "20", `${process.execPath} ${MAIN} --config ${fleet.configPath} top --interval 0.3`);
    const running = await waitScreen(/spark-a\s+running\s+connected\s+Bash\s+\d+s/, "spark-a running Bash in the view");
    expect(running).toMatch(/^culture top — 2 agent\(s\)/);
    expect(running).toMatch(/spark-b\s+idle\s+connected\s+-/);
    // The elapsed time moves on screen.
    await waitScreen(/spark-a\s+running\s+connected\s+Bash\s+[1-9]\d*s/, "the elapsed time to count up");
    // CULTURE_TOP_CAPTURE=file keeps the screen (docs/cli.md shows one).
    if (process.env.CULTURE_TOP_CAPTURE) writeFileSync(process.env.CULTURE_TOP_CAPTURE, screen());

    // a (armed), a again: the turn is aborted through the control socket.
    tmux("send-keys", "-t", SESSION, "a");
    await waitScreen(/press a again to abort spark-a/, "the abort prompt");
    tmux("send-keys", "-t", SESSION, "a");
    await waitScreen(/aborted spark-a's work/, "the abort result");
    await waitScreen(/spark-a\s+idle/, "spark-a idle after the abort");

    // Down to spark-b, pause it, then resume it.
    tmux("send-keys", "-t", SESSION, "Down", "p");
    await waitScreen(/spark-b\s+paused/, "spark-b paused");
    const status = JSON.parse((await fleet.culture(["status", "--json"])).stdout) as Array<{ nick: string; paused: boolean }>;
    expect(status.find((s) => s.nick === "spark-b")?.paused).toBe(true);
    tmux("send-keys", "-t", SESSION, "r");
    await waitScreen(/spark-b\s+idle/, "spark-b resumed");

    tmux("send-keys", "-t", SESSION, "q");
    await eventually(() => {
      try {
        tmux("has-session", "-t", SESSION);
        return false;
      } catch {
        return true;
      }
    }, "culture top to quit on q");
  });

  it("culture logs --all -f merges every agent's log, nick-prefixed, filtered by level, and follows new lines", async () => {
    const child = spawn(process.execPath, [MAIN, "logs", "--all", "-f", "-n", "200", "--level", "info"], { env: fleet.env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    try {
      await eventually(() => /^spark-a \| \S+ INFO /m.test(out) && /^spark-b \| \S+ INFO /m.test(out), "both agents' lines in the stream");
      expect(out).not.toMatch(/ DEBUG /);
      const before = out.length;
      human.send("PRIVMSG #test :@spark-b tool echo followed");
      await eventually(() => /^spark-b \| \S+ INFO \[[\w-]*:?tools\] tool Bash done in \S+ .*input="echo followed"/m.test(out.slice(before)), `the followed tool line of spark-b in:\n${out.slice(-1500)}`);
      if (process.env.CULTURE_LOGS_CAPTURE) writeFileSync(process.env.CULTURE_LOGS_CAPTURE, out);
    } finally {
      child.kill();
    }
  });
});
