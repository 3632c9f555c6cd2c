/**
 * Password checks for PASS and SASL PLAIN, and who owns a nick. Accounts come from two
 * places: the in-memory `accounts` option (plain passwords, for tests and embedding) and the
 * account store file (scrypt hashes). Comparisons hash both sides first so they take the same
 * time whatever the input, and an unknown account costs what a wrong password does.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { ircLower } from "./casemapping.js";
import type { ResolvedOptions } from "./server-options.js";

/** True when `given` equals `expected`, compared in constant time. */
export function passwordMatches(expected: string, given: string): boolean {
  return timingSafeEqual(digest(expected), digest(given));
}

/** The account name when `account`/`password` match an entry of `accounts`, else null. */
export function checkAccount(accounts: ReadonlyMap<string, string>, account: string, password: string): string | null {
  const expected = accounts.get(account);
  // Compare against something even for an unknown account, so timing does not reveal names.
  const ok = passwordMatches(expected ?? "\0no-such-account", password);
  return ok && expected !== undefined ? account : null;
}

/** True when the server has any way to log in (SASL is offered, PASS account:password works). */
export function hasAccounts(opts: ResolvedOptions): boolean {
  return opts.accounts.size > 0 || opts.accountStore !== null;
}

/** The account name when the credentials are right (in-memory accounts first, then the store), else null. */
export async function authenticate(opts: ResolvedOptions, account: string, password: string): Promise<string | null> {
  if (opts.accounts.has(account)) return checkAccount(opts.accounts, account, password);
  if (opts.accountStore) {
    try {
      return await opts.accountStore.verify(account, password);
    } catch (err) {
      opts.logger.error("cannot read the account store", { error: err instanceof Error ? err.message : String(err) });
      return null;
    }
  }
  return checkAccount(opts.accounts, account, password);
}

/**
 * The account that owns `nick` (an account's name is its nick), or null when the nick is free
 * for anyone. Case-insensitive.
 */
export function nickOwner(opts: ResolvedOptions, nick: string): string | null {
  const folded = ircLower(nick);
  for (const name of opts.accounts.keys()) if (ircLower(name) === folded) return name;
  if (opts.accountStore) {
    try {
      return opts.accountStore.get(nick)?.name ?? null;
    } catch (err) {
      opts.logger.error("cannot read the account store", { error: err instanceof Error ? err.message : String(err) });
    }
  }
  return null;
}

function digest(s: string): Buffer {
  return createHash("sha256").update(s, "utf8").digest();
}
