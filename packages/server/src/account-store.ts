/**
 * The embedded server's account store: one JSON file (mode 0600) of account names and scrypt
 * password hashes, under the server's state dir. The server reads it (and re-reads it when it
 * changes, so `culture server user add` works on a running server); `culture server user ...`
 * and the agents' daemons (their generated credentials) write it. Writers take a lock file and
 * replace the file atomically, so concurrent writers never lose each other's changes and a
 * reader never sees half a file.
 */
import { createHash, randomBytes, scrypt as scryptCb, timingSafeEqual } from "node:crypto";
import { chmodSync, closeSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ircLower, isValidNick } from "./casemapping.js";
import { LIMITS } from "./server-options.js";
import { ensurePrivateDir } from "./private-files.js";

/** Who an account is for (shown by `culture server user list`). */
export type AccountKind = "human" | "agent";

/** One account as stored. */
export interface AccountRecord {
  /** The name as it was created (lookups are case-insensitive, RFC 1459 folding). */
  name: string;
  /**
   * `scrypt$<N>$<r>$<p>$<salt base64>$<hash base64>`, or `sha256$<salt base64>$<hash base64>`
   * for a secret culture generated itself ({@link hashGeneratedSecret}).
   */
  hash: string;
  kind: AccountKind;
  /** ISO time of creation. */
  created: string;
}

/** An account without its hash. */
export type AccountInfo = Omit<AccountRecord, "hash">;

interface StoreFile {
  version: 1;
  accounts: Record<string, AccountRecord>;
}

/** The file name of the store inside the server's state dir. */
export const ACCOUNTS_FILE = "accounts.json";

/** `<stateDir>/accounts.json`. */
export function accountStorePath(stateDir: string): string {
  return join(stateDir, ACCOUNTS_FILE);
}

/** scrypt cost: N=2^14, r=8, p=1 (the interactive-login parameters of RFC 7914), 16 MiB of memory. */
const N = 16384;
const R = 8;
const P = 1;
const KEYLEN = 32;

/** A fresh random password: 24 bytes, base64url (32 characters, no IRC-unsafe characters). */
export function generatePassword(): string {
  return randomBytes(24).toString("base64url");
}

/** Hashes `password` with scrypt and a random salt. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, KEYLEN, N, R, P);
  return `scrypt$${N}$${R}$${P}$${salt.toString("base64")}$${key.toString("base64")}`;
}

/**
 * Hashes a secret that culture generated ({@link generatePassword}: 192 random bits) with one
 * salted SHA-256 instead of scrypt. scrypt's cost is there to slow down guessing a password a
 * person chose once the hash file leaks; a uniformly random 192-bit secret cannot be guessed at
 * any speed (2^191 tries on average), so the cost buys nothing for it, while it made every agent
 * login cost the server ~50 ms of CPU and 16 MiB (50 agents: seconds of start time). Throws for
 * anything that does not look generated, so a person's password can never take this path.
 */
export function hashGeneratedSecret(secret: string): string {
  if (!isGeneratedSecret(secret)) throw new Error("only a secret from generatePassword() may be hashed without scrypt");
  const salt = randomBytes(16);
  return `sha256$${salt.toString("base64")}$${sha256(salt, secret).toString("base64")}`;
}

/** True when `secret` has the form {@link generatePassword} gives: 32 base64url characters (192 bits). */
export function isGeneratedSecret(secret: string): boolean {
  return /^[A-Za-z0-9_-]{32}$/.test(secret);
}

/** True when `hash` is the cheap form for generated secrets ({@link hashGeneratedSecret}). */
export function isGeneratedSecretHash(hash: string): boolean {
  return hash.startsWith("sha256$");
}

/** True when `password` matches `hash` (from {@link hashPassword} or {@link hashGeneratedSecret}); constant time in the password. */
export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  const parts = hash.split("$");
  if (parts.length === 3 && parts[0] === "sha256") {
    const expected = Buffer.from(parts[2]!, "base64");
    // A person's password never matches a generated-secret hash, whatever it hashes to.
    if (expected.length !== 32 || !isGeneratedSecret(password)) return false;
    return timingSafeEqual(sha256(Buffer.from(parts[1]!, "base64"), password), expected);
  }
  if (parts.length !== 6 || parts[0] !== "scrypt") return false;
  const [n, r, p] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  if (![n, r, p].every((x) => Number.isInteger(x) && x > 0) || n > 1 << 20) return false;
  const salt = Buffer.from(parts[4]!, "base64");
  const expected = Buffer.from(parts[5]!, "base64");
  if (expected.length === 0) return false;
  const key = await scrypt(password, salt, expected.length, n, r, p);
  return timingSafeEqual(key, expected);
}

/** A hash that matches nothing, verified for unknown accounts so timing does not reveal names. */
let dummyHash: Promise<string> | null = null;

/** Why an account name is not acceptable, or null when it is. */
export function accountNameProblem(name: string): string | null {
  if (!isValidNick(name, LIMITS.NICKLEN)) {
    return `"${name}" is not a valid account name: it must be a valid IRC nick (a letter or one of [\\]^_\`{|}, then letters, digits, - or those; at most ${LIMITS.NICKLEN} characters)`;
  }
  return null;
}

/**
 * The store. Reads are cached and refreshed when the file changes (size, mtime or inode);
 * every write re-reads under the lock first.
 */
export class AccountStore {
  private cache: Map<string, AccountRecord> = new Map();
  private stamp = "";

  constructor(readonly path: string) {}

  /** Creates an empty store file (0600, its folder 0700) if there is none. */
  ensure(): void {
    ensurePrivateDir(dirname(this.path));
    try {
      writeFileSync(this.path, `${JSON.stringify({ version: 1, accounts: {} }, null, 2)}\n`, { mode: 0o600, flag: "wx" });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    tighten(this.path);
  }

  /** The account named `name` (case-insensitive), or undefined. */
  get(name: string): AccountRecord | undefined {
    this.refresh();
    return this.cache.get(ircLower(name));
  }

  /** True when an account named `name` exists. */
  has(name: string): boolean {
    return this.get(name) !== undefined;
  }

  /** Every account, sorted by name, without hashes. */
  list(): AccountInfo[] {
    this.refresh();
    return [...this.cache.values()].map(({ name, kind, created }) => ({ name, kind, created })).sort((a, b) => a.name.localeCompare(b.name));
  }

  /**
   * The stored name of the account when `password` is right, else null. An unknown account
   * costs what a wrong password does.
   */
  async verify(name: string, password: string): Promise<string | null> {
    const record = this.get(name);
    if (!record) {
      dummyHash ??= hashPassword(generatePassword());
      await verifyPassword(await dummyHash, password);
      return null;
    }
    return (await verifyPassword(record.hash, password)) ? record.name : null;
  }

  /** Adds an account; throws when the name is invalid or taken. */
  async add(name: string, password: string, kind: AccountKind): Promise<AccountInfo> {
    const problem = accountNameProblem(name);
    if (problem) throw new Error(problem);
    if (password.length === 0) throw new Error("the password is empty");
    const hash = await hashPassword(password);
    const created = new Date().toISOString();
    await this.update((accounts) => {
      const key = ircLower(name);
      if (accounts[key]) throw new Error(`an account named "${accounts[key].name}" already exists (culture server user passwd ${accounts[key].name} changes its password)`);
      accounts[key] = { name, hash, kind, created };
    });
    return { name, kind, created };
  }

  /** Sets a new password for an existing account; throws when there is no such account. */
  async setPassword(name: string, password: string): Promise<void> {
    if (password.length === 0) throw new Error("the password is empty");
    const hash = await hashPassword(password);
    await this.update((accounts) => {
      const record = accounts[ircLower(name)];
      if (!record) throw new Error(`there is no account named "${name}" (culture server user list shows them)`);
      record.hash = hash;
    });
  }

  /**
   * Adds the account or replaces its password (the agents' generated credentials). With
   * `generated`, the password must come from {@link generatePassword} and is stored with the
   * cheap hash of {@link hashGeneratedSecret}.
   */
  async upsert(name: string, password: string, kind: AccountKind, options: { generated?: boolean } = {}): Promise<void> {
    const problem = accountNameProblem(name);
    if (problem) throw new Error(problem);
    const hash = options.generated ? hashGeneratedSecret(password) : await hashPassword(password);
    await this.update((accounts) => {
      const key = ircLower(name);
      const existing = accounts[key];
      accounts[key] = existing ? { ...existing, hash } : { name, hash, kind, created: new Date().toISOString() };
    });
  }

  /** Removes an account; throws when there is no such account. */
  async remove(name: string): Promise<void> {
    await this.update((accounts) => {
      const key = ircLower(name);
      if (!accounts[key]) throw new Error(`there is no account named "${name}" (culture server user list shows them)`);
      delete accounts[key];
    });
  }

  private refresh(): void {
    let stamp: string;
    try {
      const st = statSync(this.path);
      stamp = `${st.ino}:${st.size}:${st.mtimeMs}`;
    } catch {
      this.cache = new Map();
      this.stamp = "";
      return;
    }
    if (stamp === this.stamp) return;
    this.cache = new Map(Object.entries(readStore(this.path).accounts));
    this.stamp = stamp;
  }

  private async update(change: (accounts: Record<string, AccountRecord>) => void): Promise<void> {
    this.ensure();
    const release = await lock(`${this.path}.lock`);
    try {
      const store = readStore(this.path);
      change(store.accounts);
      const tmp = `${this.path}.${process.pid}.tmp`;
      writeFileSync(tmp, `${JSON.stringify(store, null, 2)}\n`, { mode: 0o600 });
      renameSync(tmp, this.path);
      tighten(this.path);
    } finally {
      release();
    }
    this.stamp = "";
  }
}

function readStore(path: string): StoreFile {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return { version: 1, accounts: {} };
    throw err;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new Error(`the account store ${path} is not valid JSON (${(err as Error).message}); fix or remove it`);
  }
  const accounts = (parsed as { accounts?: unknown } | null)?.accounts;
  if (typeof accounts !== "object" || accounts === null) throw new Error(`the account store ${path} has no "accounts" object; fix or remove it`);
  const out: Record<string, AccountRecord> = {};
  for (const record of Object.values(accounts as Record<string, AccountRecord>)) {
    if (record && typeof record.name === "string" && typeof record.hash === "string") {
      out[ircLower(record.name)] = { name: record.name, hash: record.hash, kind: record.kind === "agent" ? "agent" : "human", created: String(record.created ?? "") };
    }
  }
  return { version: 1, accounts: out };
}

/** The store holds password hashes: only its owner may read it, whatever the umask was. */
function tighten(path: string): void {
  try {
    if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
  } catch {
    /* gone */
  }
}

/** An exclusive lock file; a lock older than 10 s is taken to be left by a dead writer. */
async function lock(path: string): Promise<() => void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      closeSync(openSync(path, "wx", 0o600));
      return () => rmSync(path, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      try {
        if (Date.now() - statSync(path).mtimeMs > 10_000) rmSync(path, { force: true });
      } catch {
        /* released meanwhile */
      }
      if (Date.now() > deadline) throw new Error(`the account store is locked by ${path}; remove that file if no culture command is running`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

function scrypt(password: string, salt: Buffer, keylen: number, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCb(password.normalize("NFC"), salt, keylen, { N: n, r, p, maxmem: 256 * n * r + 1024 * 1024 }, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

function sha256(salt: Buffer, secret: string): Buffer {
  return createHash("sha256").update(salt).update(secret, "utf8").digest();
}
