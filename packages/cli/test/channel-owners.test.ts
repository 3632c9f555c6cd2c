/**
 * The agents' channels belong to their owners on the embedded server: a real `culture server
 * start` registers the channels of agents.yaml (owners: the operators' accounts and the agents'
 * own), so mallory — a logged-in account that is neither — joining the agent's channel while
 * it is empty gets no ops and cannot set +i; the agent then joins fine (a real detached
 * daemon) with ops, and the operator alice gets ops when she joins. An owner's +i does not
 * keep another owner out. Build first (`npm run build`).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectRawClient, freePort, parseRawLine, type RawIrcClient } from "@culture/core/testing";
import { makeFleet, type Fleet } from "./fleet-harness.js";

let f: Fleet;
let port: number;
const clients: RawIrcClient[] = [];

beforeAll(async () => {
  port = await freePort();
  f = makeFleet(port, ["spark-own"], { operators: ["alice"] });
  const server = await f.culture(["server", "start"]);
  expect(server.stderr).toBe("");
  expect(server.code).toBe(0);
  for (const name of ["mallory", "alice"]) {
    writeFileSync(join(f.home, `${name}.pw`), `${name}-password-1\n`);
    const add = await f.culture(["server", "user", "add", name, "--password-file", join(f.home, `${name}.pw`)]);
    expect(add.code).toBe(0);
  }
}, 60_000);
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await f?.culture(["stop", "--all"]);
  await f?.culture(["server", "stop"]);
  await f?.cleanup();
});

async function login(name: string): Promise<RawIrcClient> {
  const c = await connectRawClient(port, name, { password: `${name}:${name}-password-1` });
  clients.push(c);
  return c;
}

/** The nicks of `channel` with their prefixes, as NAMES shows them to `c`. */
async function names(c: RawIrcClient, channel: string): Promise<string[]> {
  c.send(`NAMES ${channel}`);
  const line = await c.waitFor((_l, p) => p.command === "353" && p.params[2] === channel);
  return (parseRawLine(line).params[3] ?? "").split(" ").filter(Boolean).sort();
}

describe("agent channels on the embedded server", { timeout: 60_000 }, () => {
  it("mallory, first into the agent's empty channel, gets no ops and cannot lock it; the agent and the operator get ops", async () => {
    const mallory = await login("mallory");
    await mallory.join("#test");
    expect(await names(mallory, "#test")).toEqual(["mallory"]);
    for (const mode of ["+i", "+k secret", "+b spark-own!*@*", "+o mallory"]) {
      mallory.send(`MODE #test ${mode}`);
      await mallory.waitFor((_l, p) => p.command === "482" && p.params[1] === "#test");
    }

    const start = await f.culture(["start", "--all"]);
    expect(start.stderr).toBe("");
    expect(start.code).toBe(0);
    const status = JSON.parse((await f.culture(["status", "--json"])).stdout) as Array<Record<string, unknown>>;
    expect(status[0]).toMatchObject({ nick: "spark-own", channels: expect.arrayContaining(["#test"]) });
    expect(await names(mallory, "#test")).toEqual(["@spark-own", "mallory"]);

    const alice = await login("alice");
    await alice.join("#test");
    expect(await names(alice, "#test")).toEqual(["@alice", "@spark-own", "mallory"]);

    // An unregistered channel keeps the usual rule: its first member is its op.
    await mallory.join("#mallorys");
    expect(await names(mallory, "#mallorys")).toEqual(["@mallory"]);
  });

  it("an owner's +i or ban does not keep another owner out", async () => {
    const alice = clients.find((c) => c.nick === "alice")!;
    alice.send("MODE #test +ib spark-own!*@*");
    await alice.waitFor((_l, p) => p.command === "MODE" && p.params[0] === "#test" && p.params[1] === "+ib");
    expect((await f.culture(["stop", "spark-own"])).code).toBe(0);
    const start = await f.culture(["start", "spark-own"]);
    expect(start.stderr).toBe("");
    expect(start.code).toBe(0);
    expect(await names(alice, "#test")).toEqual(["@alice", "@spark-own", "mallory"]);
  });
});
