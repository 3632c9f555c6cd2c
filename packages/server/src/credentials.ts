/**
 * Password checks for PASS and SASL PLAIN. Comparisons hash both sides first so they take
 * the same time whatever the input, and an unknown account costs what a wrong password does.
 */
import { createHash, timingSafeEqual } from "node:crypto";

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

function digest(s: string): Buffer {
  return createHash("sha256").update(s, "utf8").digest();
}
