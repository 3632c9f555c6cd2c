/**
 * Two machines on one IRC network, for real: "host A" is a network namespace this test creates
 * (netns.ts: a veth pair, 10.233.x.0/30 addresses that exist only in this sandbox), running
 * InspIRCd server A and two culture daemons (`culture start --all` run inside it, echo backend);
 * "host B" is the default namespace, running InspIRCd server B, linked to A over the veth, a
 * person's IRC client and `culture top --network` in tmux. Nothing on A is reachable from B but
 * the IRC link (and A's client port, for the readiness probe): B sees A's agents only through
 * presence. The test asks spark-a (from B) to run a tool and watches top on B go idle ->
 * running Bash -> idle, live. Needs root, iproute2 and tmux; fails (never skips) without them.
 */
import { execFile, execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectRawClient, freePort, parseRawLine, startIrcServer, type RawIrcClient, type RunningIrcServer } from "@culture/core/testing";
import { eventually, MAIN, makeFleet, pidFilesIn, type Fleet, type Run } from "./fleet-harness.js";
import { createNetns, pidsIn, type NetnsHost } from "./netns.js";

const SOCKET = `culture-2h-${process.pid}`;
const SESSION = "top";
const PRESENCE = "#culture-presence";

let ns: NetnsHost | undefined;
let serverA: RunningIrcServer | undefined;
let serverB: RunningIrcServer | undefined;
let hostA: Fleet | undefined;
let hostB: Fleet | undefined;
let alice: RawIrcClient | undefined;

const tmux = (...args: string[]) => execFileSync("tmux", ["-L", SOCKET, ...args], { env: hostB!.env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
const screen = () => tmux("capture-pane", "-p", "-t", SESSION);
const waitScreen = (match: RegExp, what: string) =>
  eventually(() => {
    const s = screen();
    return match.test(s) ? s : "";
  }, what, 20_000).catch((err: Error) => {
    throw new Error(`${err.message}\nthe screen:\n${safeScreen()}`);
  });

/** Runs the culture CLI on host A: inside the namespace, with host A's home and config. */
function cultureOnA(args: string[]): Promise<Run> {
  const [cmd, argv] = ns!.wrap([process.execPath, MAIN, "--config", hostA!.configPath, ...args]);
  return new Promise((resolve) => {
    const child = execFile(cmd, argv, { cwd: hostA!.home, env: hostA!.env, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      for (const m of `${stdout}\n${stderr}`.matchAll(/\bpid (\d+)/g)) hostA!.pids.add(Number(m[1]));
      resolve({ code, stdout, stderr, pid: child.pid ?? -1 });
    });
  });
}

beforeAll(async () => {
  ns = createNetns(String(process.pid % 100_000));
  const suffix = Math.random().toString(36).slice(2, 8);
  const nameA = `a-${suffix}.test`;
  const nameB = `b-${suffix}.test`;
  const password = `link-${suffix}`;
  const linkPortA = await freePort();
  const linkPortB = await freePort();
  // B (the default namespace) takes the link on its veth address only; A dials it.
  serverB = await startIrcServer("inspircd", {
    serverName: nameB,
    serverPort: linkPortB,
    serverHost: ns.outerAddress,
    link: { peerName: nameA, peerPort: linkPortA, peerHost: ns.innerAddress, password, autoconnect: false },
  });
  serverA = await startIrcServer("inspircd", {
    netns: ns.name,
    clientHost: ns.innerAddress,
    serverName: nameA,
    serverPort: linkPortA,
    serverHost: ns.innerAddress,
    link: { peerName: nameB, peerPort: linkPortB, peerHost: ns.outerAddress, password, autoconnect: true },
  });
  await eventually(async () => {
    const probe = await connectRawClient(serverB!.port, `lk${suffix}`);
    probe.send("LINKS");
    await probe.waitFor(/ 365 /, 5_000);
    const linked = probe.lines.some((l) => / 364 /.test(l) && l.includes(nameA));
    await probe.close();
    return linked;
  }, "server A (host A) to link to server B over the veth", 30_000);

  // Host A: two agents whose config names server A on the namespace's own loopback.
  hostA = makeFleet(serverA.port, ["spark-a", "spark-b"], { allow: "everyone", presence: { channel: PRESENCE, min_interval_seconds: 0.3 } });
  const up = await cultureOnA(["start", "--all"]);
  expect(up.code, up.stderr).toBe(0);
  // Host B: no agents, the same network (server B) and presence channel.
  hostB = makeFleet(serverB.port, [], { presence: { channel: PRESENCE } });
  hostB.writeConfig([], { presence: { channel: PRESENCE } });
  alice = await connectRawClient(serverB.port, "alice");
  await alice.join("#test");
}, 120_000);

afterAll(async () => {
  try {
    tmux("kill-server");
  } catch {
    /* not started or gone */
  }
  await alice?.close().catch(() => undefined);
  if (hostA) await cultureOnA(["stop", "--all"]).catch(() => undefined);
  await hostA?.cleanup();
  await hostB?.cleanup();
  await serverA?.stop();
  await serverB?.stop();
  ns?.remove();
}, 60_000);

describe("two hosts: agents in a network namespace, seen from the default one", { timeout: 90_000 }, () => {
  it("culture top --network on host B shows host A's agents change state live (idle -> running Bash -> idle)", async () => {
    // The daemons really are on host A: inside the namespace.
    const daemons = pidFilesIn(hostA!.home);
    expect(daemons).toHaveLength(2);
    const inside = new Set(pidsIn(ns!.name));
    for (const pid of daemons) expect(inside.has(pid), `daemon pid ${pid} in ${ns!.name}`).toBe(true);

    tmux("new-session", "-d", "-s", SESSION, "-x", "150", "-y", "20", `${process.execPath} ${MAIN} --config ${hostB!.configPath} top --network --interval 0.3`);
    const idle = await waitScreen(/spark-a\s+idle\s+connected[\s\S]*spark-b\s+idle\s+connected|spark-b\s+idle\s+connected[\s\S]*spark-a\s+idle\s+connected/, "both agents of host A idle on host B's view");
    expect(idle).toMatch(/^culture top --network — 2 agent\(s\)/);

    // From host B's server: a mention that makes spark-a run a tool until the gate file exists.
    const gate = join(hostA!.home, "gate");
    alice!.send(`PRIVMSG #test :@spark-a exec sh -c 'while [ ! -e ${gate} ]; do sleep 0.05; done; echo through'`);
    const running = await waitScreen(/spark-a\s+running\s+connected\s+Bash\s+\d+s/, "spark-a running Bash on host B's view");
    expect(running).toMatch(/spark-b\s+idle\s+connected/);
    if (process.env.CULTURE_TWO_HOSTS_CAPTURE) writeFileSync(process.env.CULTURE_TWO_HOSTS_CAPTURE, running);
    writeFileSync(gate, "");
    await waitScreen(/spark-a\s+idle\s+connected\s+-\s+-\s+0\s+1\b/, "spark-a idle again with one turn done");
    // The reply crossed the link too.
    await alice!.waitFor((l) => parseRawLine(l).nick === "spark-a" && l.includes("through"), 10_000);
    tmux("send-keys", "-t", SESSION, "q");
  });
});

/** The screen, or why it cannot be read (for timeout messages). */
function safeScreen(): string {
  try {
    return screen();
  } catch (err) {
    return String(err);
  }
}
