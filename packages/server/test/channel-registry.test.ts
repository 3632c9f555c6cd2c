// Registered channels (channel-registry.ts): channels owned by accounts. Only owners get ops
// (never the first to join), owners always get in, the file is re-read while the server runs,
// and a file that cannot be read keeps the previous registry rather than opening the channels.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startServer, updateChannelRegistry, type IrcServer } from "../src/index.js";
import { RawClient } from "./helpers/raw-client.js";

let dir: string;
let file: string;
let server: IrcServer;
const open: RawClient[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "culture-registry-"));
  file = join(dir, "server", "channels.json");
  updateChannelRegistry(file, "/a/agents.yaml", { "#Agents": ["alice", "spark-bot"] });
  server = await startServer({
    port: 0,
    stateDir: null,
    channelsFile: file,
    accounts: { alice: "pw-alice-1", "spark-bot": "pw-spark-bot-1", mallory: "pw-mallory-1", bob: "pw-bob-1" },
  });
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const as = async (nick: string, account: string): Promise<RawClient> => {
  const c = await RawClient.register(server.port, nick, { pass: `${account}:pw-${account}-1` });
  open.push(c);
  return c;
};
const namesOf = async (c: RawClient, channel: string): Promise<string[]> => {
  c.send(`NAMES ${channel}`);
  const line = await c.waitFor((l) => / 353 /.test(l) && l.includes(channel));
  return line.slice(line.indexOf(" :", line.indexOf(" 353 ")) + 2).split(" ").filter(Boolean).sort();
};

describe("channel registry", () => {
  it("is written 0600, and names channels case-insensitively", () => {
    expect((statSync(file).mode & 0o777).toString(8)).toBe("600");
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ version: 1, configs: { "/a/agents.yaml": { "#Agents": ["alice", "spark-bot"] } } });
  });

  it("gives a non-owner no ops in an empty registered channel; owners get ops and get past +i/+k/+l/+b", async () => {
    const mallory = await as("mallory", "mallory");
    mallory.send("JOIN #agents");
    expect(await namesOf(mallory, "#agents")).toEqual(["mallory"]);
    mallory.send("MODE #agents +i");
    await mallory.waitFor(/ 482 mallory #agents /);
    const alice = await as("alice", "alice");
    alice.send("JOIN #AGENTS");
    expect(await namesOf(alice, "#agents")).toEqual(["@alice", "mallory"]);
    alice.send("MODE #agents +iklb key 2 spark-bot!*@*");
    await alice.waitFor(/ MODE #agents \+iklb /i);
    const bot = await as("spark-bot", "spark-bot");
    bot.send("JOIN #agents");
    expect(await namesOf(bot, "#agents")).toEqual(["@alice", "@spark-bot", "mallory"]);
    // A non-owner meets the locks as usual.
    const bob = await as("bob", "bob");
    bob.send("JOIN #agents");
    await bob.waitFor(/ 473 bob #agents /);
  });

  it("picks up a changed registry while running, and keeps the last good one when the file is broken", async () => {
    updateChannelRegistry(file, "/b/agents.yaml", { "#late": ["bob"] });
    const mallory = await as("mallory", "mallory");
    mallory.send("JOIN #late");
    expect(await namesOf(mallory, "#late")).toEqual(["mallory"]);
    writeFileSync(file, "{ not json");
    mallory.send("JOIN #agents");
    expect(await namesOf(mallory, "#agents")).toEqual(["mallory"]);
    // Removing a config's entry unregisters its channels.
    writeFileSync(file, JSON.stringify({ version: 1, configs: {} }));
    mallory.send("PART #late");
    mallory.send("JOIN #late");
    expect(await namesOf(mallory, "#late")).toEqual(["@mallory"]);
  });
});
