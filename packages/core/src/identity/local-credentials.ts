/**
 * Generated credentials for the embedded server on this machine. The embedded server requires
 * an account from every client; an agent (and the local operator behind `culture send`) should
 * not need one configured by hand. So the first time one connects, culture generates a
 * password, adds the account to the server's account store (`$CULTURE_HOME/server/accounts.json`,
 * hashed) and keeps the password in `$CULTURE_HOME/credentials/<account>.json` (mode 0600, its
 * folder 0700): only the OS user who owns CULTURE_HOME can read it, which is exactly who may
 * run the agents. Another local user reaches the same port but has neither file.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AccountStore, accountStorePath, generatePassword, isGeneratedSecret, isGeneratedSecretHash, type AccountKind } from "@culture/server/accounts";
import type { ServerConfig } from "../config/schema.js";
import { cultureHome, serverDir } from "../paths.js";
import { LOCAL_HOSTS } from "./local-hosts.js";

/** An account and its password. */
export interface Credentials {
  account: string;
  password: string;
}

export { LOCAL_HOSTS } from "./local-hosts.js";

/** `$CULTURE_HOME/credentials`. */
export function credentialsDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(cultureHome(env), "credentials");
}

/** `$CULTURE_HOME/server/accounts.json`: the embedded server's account store. */
export function embeddedAccountStorePath(env: NodeJS.ProcessEnv = process.env): string {
  return accountStorePath(serverDir(env));
}

/**
 * True when `server` is culture's embedded server on this machine, as far as the config can
 * tell: a loopback host, an account store under CULTURE_HOME (the server creates it when it
 * starts), and no running `culture server` on another port.
 */
export function isEmbeddedServer(server: Pick<ServerConfig, "host" | "port">, env: NodeJS.ProcessEnv = process.env): boolean {
  if (!LOCAL_HOSTS.has(server.host.toLowerCase()) || !existsSync(embeddedAccountStorePath(env))) return false;
  // A running `culture server start` names its port in its PID file: another local IRC server
  // on a different port (an InspIRCd for tests, say) is not the embedded one.
  const running = serverPidPort(env);
  return running === null || running === server.port;
}

/** The port in `$CULTURE_HOME/pids/server.pid` (`<pid>\n<host>:<port>`), or null. */
function serverPidPort(env: NodeJS.ProcessEnv): number | null {
  try {
    const address = readFileSync(join(cultureHome(env), "pids", "server.pid"), "utf8").split("\n")[1] ?? "";
    const port = Number(address.slice(address.lastIndexOf(":") + 1));
    return Number.isInteger(port) && port > 0 ? port : null;
  } catch {
    return null;
  }
}

/**
 * The credentials of `account` on the embedded server, created (and added to the account
 * store) if missing or no longer valid (e.g. after `culture server user passwd`).
 */
export async function localCredentials(account: string, kind: AccountKind, env: NodeJS.ProcessEnv = process.env): Promise<Credentials> {
  const store = new AccountStore(embeddedAccountStorePath(env));
  const file = join(credentialsDir(env), `${account.toLowerCase()}.json`);
  const saved = readSaved(file);
  if (saved && saved.account.toLowerCase() === account.toLowerCase() && (await store.verify(saved.account, saved.password)) !== null) {
    // Stored by an older culture with scrypt: re-hash it the cheap way once (account-store.ts says why).
    const record = store.get(saved.account);
    if (record && !isGeneratedSecretHash(record.hash) && isGeneratedSecret(saved.password)) await store.upsert(saved.account, saved.password, kind, { generated: true });
    return saved;
  }
  const password = generatePassword();
  await store.upsert(account, password, kind, { generated: true });
  const creds = { account: store.get(account)?.name ?? account, password };
  mkdirSync(credentialsDir(env), { recursive: true, mode: 0o700 });
  if ((statSync(credentialsDir(env)).mode & 0o077) !== 0) chmodSync(credentialsDir(env), 0o700);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(creds)}\n`, { mode: 0o600 });
  renameSync(tmp, file);
  return creds;
}

/**
 * The server config a client of the embedded server should use: unchanged when it has SASL
 * or a password configured, or is not the embedded server; else with the generated SASL
 * credentials of `account`.
 */
export async function withLocalCredentials(server: ServerConfig, account: string, kind: AccountKind, env: NodeJS.ProcessEnv = process.env): Promise<ServerConfig> {
  if (server.sasl || server.password || !isEmbeddedServer(server, env)) return server;
  return { ...server, sasl: await localCredentials(account, kind, env) };
}

function readSaved(file: string): Credentials | null {
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as Partial<Credentials>;
    return typeof parsed.account === "string" && typeof parsed.password === "string" ? { account: parsed.account, password: parsed.password } : null;
  } catch {
    return null;
  }
}
