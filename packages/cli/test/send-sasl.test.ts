/**
 * `culture send` on a network with services (InspIRCd linked with Atheme): with `server.sasl`
 * set, the real CLI logs in with SASL PLAIN, so a real detached daemon recognises the line as
 * its operator's account (an `@nick abort` from it is obeyed); a wrong password is a clear
 * error before anything is sent. Before, `culture send` never logged in when `server.sasl` was
 * set and was refused as "not an operator". Build first (`npm run build`).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectRawClient, parseRawLine, startInspircdAtheme, type InspircdAtheme } from "@culture/core/testing";
import { echoAgents, makeFleet, type Fleet } from "./fleet-harness.js";

let net: InspircdAtheme;
let f: Fleet;

beforeAll(async () => {
  net = await startInspircdAtheme();
  await net.registerAccount("spark-ops", "ops-pw-1");
  f = makeFleet(net.port, []);
  f.writeConfig(echoAgents(["spark-bot"], f.home), {
    server: { name: "spark", host: "127.0.0.1", port: net.port, sasl: { account: "spark-ops", password: "ops-pw-1" } },
    operators: ["spark-ops"],
  });
  const start = await f.culture(["start", "--all"]);
  expect(start.stderr).toBe("");
  expect(start.code).toBe(0);
}, 90_000);
afterAll(async () => {
  await f?.culture(["stop", "--all"]);
  await f?.cleanup();
  await net?.stop();
});

describe("culture send with server.sasl", { timeout: 60_000 }, () => {
  it("logs in with SASL, and the agent obeys its operator command", async () => {
    const watcher = await connectRawClient(net.port, "watcher");
    try {
      await watcher.join("#test");
      const sent = await f.culture(["send", "#test", "@spark-bot", "abort"]);
      expect(sent.stderr).toBe("");
      expect(sent.stdout).toBe("Sent to #test as spark-operator (1 line, logged in as spark-ops)\n");
      await watcher.waitFor((line) => {
        const p = parseRawLine(line);
        return p.command === "PRIVMSG" && p.nick === "spark-bot" && p.params[0] === "#test" && p.params[1] === "spark-operator: aborted the current task.";
      }, 20_000);
    } finally {
      await watcher.close();
    }
  });

  it("a wrong SASL password is an error naming the account, and nothing is sent", async () => {
    const bad = makeFleet(net.port, []);
    try {
      bad.writeConfig([], { server: { name: "spark", host: "127.0.0.1", port: net.port, sasl: { account: "spark-ops", password: "wrong" } } });
      const sent = await bad.culture(["send", "#test", "hello"]);
      expect(sent.code).toBe(1);
      expect(sent.stderr).toContain(`did not log us in as spark-ops with SASL`);
      expect(sent.stderr).toContain("Check server.sasl in agents.yaml");
    } finally {
      await bad.cleanup();
    }
  });
});
