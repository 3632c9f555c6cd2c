// Accounts on the embedded server: the account store (0600, scrypt hashes, re-read while the
// server runs), required logins (SASL PLAIN or PASS account:password; anyone else is refused
// with FAIL ACCOUNT_REQUIRED and an ERROR), nicks owned by accounts (nobody else may take one,
// its owner gets it back at once), and connection limits that idle or anonymous connections
// cannot use to lock a logged-in client out.
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { AccountStore, startServer, type IrcServer, type ServerOptions } from "../src/index.js";
import { generatePassword, hashGeneratedSecret, verifyPassword } from "../src/account-store.js";
import { RawClient } from "./helpers/raw-client.js";

let dir: string;
let storePath: string;
const open: RawClient[] = [];
const servers: IrcServer[] = [];
const plain = (user: string, pass: string): string => Buffer.from(`\0${user}\0${pass}`).toString("base64");

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "culture-accounts-"));
  storePath = join(dir, "server", "accounts.json");
  const store = new AccountStore(storePath);
  await store.add("alice", "alice-password", "human");
  await store.add("spark-agent", "agent-password", "agent");
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const serve = async (opts: ServerOptions = {}): Promise<IrcServer> => {
  const s = await startServer({ port: 0, stateDir: null, accountsFile: storePath, ...opts });
  servers.push(s);
  return s;
};
const connect = async (s: IrcServer): Promise<RawClient> => {
  const c = await RawClient.connect(s.port);
  open.push(c);
  return c;
};
/** Registers with SASL PLAIN; resolves with the client once 001 arrived. */
const saslLogin = async (s: IrcServer, nick: string, account: string, password: string): Promise<RawClient> => {
  const c = await connect(s);
  c.send("CAP LS 302");
  c.send("CAP REQ :sasl");
  c.send(`NICK ${nick}`);
  c.send(`USER ${nick} 0 * :${nick}`);
  await c.waitFor(/ ACK /);
  c.send("AUTHENTICATE PLAIN");
  await c.waitFor(/^AUTHENTICATE \+/);
  c.send(`AUTHENTICATE ${plain(account, password)}`);
  await c.waitFor(/ 903 /);
  c.send("CAP END");
  await c.waitFor(/ 001 /);
  return c;
};

describe("the account store", () => {
  it("is a 0600 file of scrypt hashes, never the passwords", () => {
    expect(statSync(storePath).mode & 0o777).toBe(0o600);
    const text = readFileSync(storePath, "utf8");
    expect(text).not.toContain("alice-password");
    expect(JSON.parse(text).accounts.alice.hash).toMatch(/^scrypt\$16384\$8\$1\$/);
  });

  it("verifies passwords, refuses duplicates and bad names, and lists without hashes", async () => {
    const store = new AccountStore(storePath);
    expect(await store.verify("ALICE", "alice-password")).toBe("alice");
    expect(await store.verify("alice", "wrong")).toBeNull();
    expect(await store.verify("nobody", "alice-password")).toBeNull();
    await expect(store.add("Alice", "x", "human")).rejects.toThrow('an account named "alice" already exists');
    await expect(store.add("#bad", "x", "human")).rejects.toThrow("is not a valid account name");
    expect(store.list()).toEqual([
      { name: "alice", kind: "human", created: expect.any(String) },
      { name: "spark-agent", kind: "agent", created: expect.any(String) },
    ]);
  });
});

describe("generated secrets (the agents' own credentials)", () => {
  it("are stored with a salted SHA-256, verify, and log in over SASL; everything else stays scrypt", async () => {
    const store = new AccountStore(join(dir, "gen", "accounts.json"));
    const secret = generatePassword();
    await store.upsert("spark-gen", secret, "agent", { generated: true });
    const hash = store.get("spark-gen")!.hash;
    expect(hash).toMatch(/^sha256\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
    expect(readFileSync(store.path, "utf8")).not.toContain(secret);
    expect(await store.verify("spark-gen", secret)).toBe("spark-gen");
    expect(await store.verify("spark-gen", generatePassword())).toBeNull();
    // Without the flag (and for add/setPassword), the same kind of secret is hashed with scrypt.
    await store.upsert("spark-plain", secret, "agent");
    await store.add("bob", "bob-password", "human");
    await store.setPassword("bob", "bob-password-2");
    expect(store.get("spark-plain")!.hash).toMatch(/^scrypt\$/);
    expect(store.get("bob")!.hash).toMatch(/^scrypt\$/);
    const s = await startServer({ port: 0, stateDir: null, accountsFile: store.path });
    servers.push(s);
    const c = await saslLogin(s, "spark-gen", "spark-gen", secret);
    expect(c.lines.some((l) => / 900 /.test(l))).toBe(true);
  });

  it("a person's password can never take the cheap path", async () => {
    const store = new AccountStore(join(dir, "gen2", "accounts.json"));
    for (const weak of ["hunter2", "correct horse battery staple", `${generatePassword()}x`, generatePassword().slice(1), `${generatePassword().slice(1)}+`]) {
      expect(() => hashGeneratedSecret(weak)).toThrow("only a secret from generatePassword()");
      await expect(store.upsert("spark-weak", weak, "agent", { generated: true })).rejects.toThrow("only a secret from generatePassword()");
    }
    expect(store.has("spark-weak")).toBe(false);
    // A hand-made sha256 record of a weak password (an edited file) matches nothing: verify
    // takes only generated-form secrets against it.
    const salt = Buffer.alloc(16, 7);
    const forged = `sha256$${salt.toString("base64")}$${createHash("sha256").update(salt).update("hunter2").digest("base64")}`;
    expect(await verifyPassword(forged, "hunter2")).toBe(false);
    // Malformed records match nothing.
    const secret = generatePassword();
    const good = hashGeneratedSecret(secret);
    expect(await verifyPassword(good, secret)).toBe(true);
    const [, s64, h64] = good.split("$");
    expect(await verifyPassword(`sha256$${s64}$${Buffer.from(h64!, "base64").subarray(0, 16).toString("base64")}`, secret)).toBe(false);
    expect(await verifyPassword(`sha256$${s64}$`, secret)).toBe(false);
    expect(await verifyPassword(`sha256$${s64}$${h64}$extra`, secret)).toBe(false);
    expect(await verifyPassword(`SHA256$${s64}$${h64}`, secret)).toBe(false);
  });
});

describe("required logins", () => {
  it("refuses a client that registers without logging in, saying how to log in", async () => {
    const s = await serve();
    const c = await connect(s);
    c.send("NICK anon");
    c.send("USER anon 0 * :anon");
    expect(await c.next()).toMatch(/^:culture\.local FAIL \* ACCOUNT_REQUIRED :This server requires an account\. Log in with SASL PLAIN or PASS <account>:<password>/);
    expect(await c.waitFor(/^ERROR/)).toBe("ERROR :Closing Link: 127.0.0.1 (This server requires an account (log in with SASL PLAIN or PASS account:password))");
    await c.closed;
    expect(s.clientCount).toBe(0);
  });

  it("logs in with SASL PLAIN against the store, and with PASS account:password", async () => {
    const s = await serve();
    const a = await saslLogin(s, "alice", "alice", "alice-password");
    a.send("WHOIS alice");
    expect(await a.waitFor(/ 330 /)).toBe(":culture.local 330 alice alice alice :is logged in as");
    const b = await connect(s);
    b.send("PASS alice:alice-password");
    b.send("NICK alice2");
    b.send("USER alice 0 * :alice");
    expect(await b.waitFor(/ 900 /)).toMatch(/ 900 alice2 alice2!~alice@127\.0\.0\.1 alice :You are now logged in as alice$/);
    await b.waitFor(/ 001 /);
  });

  it("refuses a wrong password, and says the login failed", async () => {
    const s = await serve();
    const c = await connect(s);
    c.send("PASS alice:not-it");
    c.send("NICK alice");
    c.send("USER alice 0 * :alice");
    expect(await c.waitFor(/^ERROR/)).toBe("ERROR :Closing Link: 127.0.0.1 (Login failed: wrong account or password (log in with SASL PLAIN or PASS account:password))");
  });

  it("sees accounts added to the store while it runs", async () => {
    const s = await serve();
    await new AccountStore(storePath).add("latecomer", "late-password", "human");
    await saslLogin(s, "latecomer", "latecomer", "late-password");
    await new AccountStore(storePath).remove("latecomer");
  });

  it("with open: true lets anonymous clients in, but still not onto an account's nick", async () => {
    const s = await serve({ open: true });
    const anon = await RawClient.register(s.port, "anon");
    open.push(anon);
    const squatter = await connect(s);
    squatter.send("NICK spark-agent");
    squatter.send("USER x 0 * :x");
    expect(await squatter.waitFor(/ 433 /)).toBe(":culture.local 433 * spark-agent :Nickname is reserved for the account of that name; log in as it");
  });

  it("closes a connection that does not register in time", async () => {
    const s = await serve({ registrationTimeoutMs: 200 });
    const c = await connect(s);
    expect(await c.waitFor(/^ERROR/)).toBe("ERROR :Closing Link: 127.0.0.1 (Registration timeout)");
  });
});

describe("nicks belong to accounts", () => {
  it("nobody else can take an account's nick, even while its owner is away or reconnecting", async () => {
    const s = await serve();
    // alice (logged in) tries to become the agent: refused, and keeps her nick.
    const alice = await saslLogin(s, "alice", "alice", "alice-password");
    alice.send("NICK spark-agent");
    expect(await alice.waitFor(/ 433 /)).toBe(":culture.local 433 alice spark-agent :Nickname is reserved for the account of that name; log in as it");
    // Registering with it while logged in as someone else: 433, pick another nick.
    const other = await connect(s);
    other.send("PASS alice:alice-password");
    other.send("NICK spark-agent");
    other.send("USER x 0 * :x");
    expect(await other.waitFor(/ 433 /)).toBe(":culture.local 433 * spark-agent :Nickname is reserved for the account of that name; log in as it");
    other.send("NICK alice-too");
    await other.waitFor(/ 001 alice-too /);
    // The owner gets it at once.
    const agent = await saslLogin(s, "spark-agent", "spark-agent", "agent-password");
    agent.send("WHOIS spark-agent");
    expect(await agent.waitFor(/ 330 /)).toBe(":culture.local 330 spark-agent spark-agent spark-agent :is logged in as");
  });

  it("the owner takes its nick back from a connection still holding it (ghost)", async () => {
    const s = await serve();
    const watcher = await saslLogin(s, "alice", "alice", "alice-password");
    watcher.send("JOIN #c");
    await watcher.waitFor(/ 366 /);
    const old = await saslLogin(s, "spark-agent", "spark-agent", "agent-password");
    old.send("JOIN #c");
    await watcher.waitFor(/ JOIN #c/);
    // The owner reconnects while its old connection is still there (it has not timed out yet).
    const fresh = await saslLogin(s, "spark-agent", "spark-agent", "agent-password");
    expect(await old.waitFor(/^ERROR/)).toBe("ERROR :Closing Link: 127.0.0.1 (Ghosted: spark-agent logged in and took back its nick)");
    expect(await watcher.waitFor(/ QUIT /)).toMatch(/^:spark-agent!\S+ QUIT :Ghosted: spark-agent logged in and took back its nick$/);
    fresh.send("PING :x");
    await fresh.waitFor(/ PONG /);
    watcher.send("PRIVMSG spark-agent :for the agent only");
    expect(await fresh.waitFor(/PRIVMSG/)).toMatch(/^:alice!\S+ PRIVMSG spark-agent :for the agent only$/);
  });
});

describe("connection limits", { timeout: 30_000 }, () => {
  it("128 idle connections from one address do not keep a logged-in client out", async () => {
    const s = await serve({ registrationTimeoutMs: 60_000 });
    const idle = await Promise.all(Array.from({ length: 128 }, () => connect(s)));
    const agent = await saslLogin(s, "spark-agent", "spark-agent", "agent-password");
    agent.send("PING :in");
    await agent.waitFor(/ PONG /);
    // The oldest idle ones were closed to make room; the newest are still open.
    expect(idle.filter((c) => c.ended).length).toBeGreaterThan(0);
  });

  it("128 anonymous clients from one address (open server) do not keep a logged-in client out", async () => {
    const s = await serve({ open: true });
    for (let i = 0; i < 128; i++) {
      const c = await RawClient.register(s.port, `anon${i}`);
      open.push(c);
    }
    const more = await connect(s);
    more.send("NICK anon-more");
    more.send("USER x 0 * :x");
    expect(await more.waitFor(/^ERROR/)).toBe("ERROR :Closing Link: 127.0.0.1 (Too many connections from your IP)");
    await saslLogin(s, "spark-agent", "spark-agent", "agent-password");
    expect(s.clientCount).toBe(129);
  });
});
