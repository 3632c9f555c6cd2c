/**
 * `culture init` and the human's IRC account: operators: names it (never "any nick"); with the
 * embedded server's account store present it creates the account and prints its password once
 * (and a real IRC client logs in with it); before the server exists it prints the exact
 * command; on another network it says to register with services. Build first (`npm run build`).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectRawClient, freePort } from "@culture/core/testing";
import { makeFleet, type Fleet } from "./fleet-harness.js";

let f: Fleet;
let port: number;
beforeAll(async () => {
  port = await freePort();
  f = makeFleet(port, []);
});
afterAll(async () => {
  await f?.culture(["server", "stop"]);
  await f?.cleanup();
});

const init = (file: string, args: string[]) => f.culture(["--config", join(f.home, file), "init", "--port", String(port), "--host", "127.0.0.1", ...args], { config: false });

describe("culture init and the human's account", { timeout: 60_000 }, () => {
  it("before the embedded server exists: operators: names the account, and Next says the exact command", async () => {
    const run = await init("a.yaml", ["--operator", "alice"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const yaml = readFileSync(join(f.home, "a.yaml"), "utf8");
    expect(yaml).toMatch(/^operators: \["alice", "spark-operator"\]$/m);
    expect(yaml).not.toMatch(/any nick/i);
    expect(yaml).toContain("Empty: nobody on IRC");
    expect(run.stdout).toMatch(/^ {2}culture server user add alice\s+# your IRC account/m);
    expect(existsSync(join(f.home, "server", "accounts.json"))).toBe(false);
  });

  it("with the embedded server: creates the account, prints its password once, and a client logs in with it", async () => {
    expect((await f.culture(["server", "start"])).code).toBe(0);
    const run = await init("b.yaml", ["--operator", "alice"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Created your IRC account alice on the embedded IRC server.");
    const password = /^Password \(shown only now\): (\S+)$/m.exec(run.stdout)?.[1];
    expect(password).toBeTruthy();
    expect(run.stdout).toContain(`irssi:   /connect 127.0.0.1 ${port} alice:<password> alice`);
    expect(run.stdout).not.toContain("culture server user add alice");
    const alice = await connectRawClient(port, "alice", { password: `alice:${password}` });
    await alice.close();
    const list = JSON.parse((await f.culture(["server", "user", "list", "--json"])).stdout) as Array<{ name: string; kind: string }>;
    expect(list).toContainEqual(expect.objectContaining({ name: "alice", kind: "human" }));
    // A second init does not replace the password.
    const again = await init("c.yaml", ["--operator", "alice"]);
    expect(again.stdout).toContain("already has an account alice");
    expect(again.stdout).not.toContain("Password");
  });

  it("on another network: only the human's account is an operator, registered with services", async () => {
    const run = await f.culture(["--config", join(f.home, "d.yaml"), "init", "--host", "irc.example.net", "--operator", "alice"], { config: false });
    expect(run.code).toBe(0);
    expect(readFileSync(join(f.home, "d.yaml"), "utf8")).toMatch(/^operators: \["alice"\]$/m);
    expect(run.stdout).toContain("register it with the services of irc.example.net:6667");
  });

  it("refuses an account name that is not a nick", async () => {
    const run = await init("e.yaml", ["--operator", "9lives"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`--operator "9lives" is not a valid IRC account name`);
  });
});
