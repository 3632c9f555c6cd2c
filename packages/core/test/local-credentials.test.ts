/**
 * The agents' generated credentials on the embedded server: stored with the cheap hash for
 * generated secrets (account-store.ts says why that is as safe), reused across starts, and an
 * older store's scrypt record of the same secret re-hashed once.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AccountStore, generatePassword } from "@culture/server";
import { afterEach, describe, expect, it } from "vitest";
import { credentialsDir, embeddedAccountStorePath, localCredentials } from "../src/identity/local-credentials.js";

const homes: string[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
});
function home(): NodeJS.ProcessEnv {
  const h = mkdtempSync(join(tmpdir(), "culture-creds-"));
  homes.push(h);
  return { CULTURE_HOME: h };
}

describe("localCredentials", () => {
  it("generates a secret stored with the cheap hash, and reuses it on the next start", async () => {
    const env = home();
    const first = await localCredentials("spark-a", "agent", env);
    const store = new AccountStore(embeddedAccountStorePath(env));
    expect(store.get("spark-a")!.hash).toMatch(/^sha256\$/);
    expect(await store.verify("spark-a", first.password)).toBe("spark-a");
    const stored = readFileSync(store.path, "utf8");
    const again = await localCredentials("spark-a", "agent", env);
    expect(again).toEqual(first);
    expect(readFileSync(store.path, "utf8")).toBe(stored);
  });

  it("re-hashes a generated secret an older culture stored with scrypt, keeping the secret", async () => {
    const env = home();
    const store = new AccountStore(embeddedAccountStorePath(env));
    const secret = generatePassword();
    await store.upsert("spark-old", secret, "agent");
    expect(store.get("spark-old")!.hash).toMatch(/^scrypt\$/);
    mkdirSync(credentialsDir(env), { recursive: true, mode: 0o700 });
    writeFileSync(join(credentialsDir(env), "spark-old.json"), JSON.stringify({ account: "spark-old", password: secret }), { mode: 0o600 });
    expect(await localCredentials("spark-old", "agent", env)).toEqual({ account: "spark-old", password: secret });
    expect(store.get("spark-old")!.hash).toMatch(/^sha256\$/);
    expect(await store.verify("spark-old", secret)).toBe("spark-old");
  });

  it("does not re-hash a person's password: a saved password of another form keeps its scrypt record", async () => {
    const env = home();
    const store = new AccountStore(embeddedAccountStorePath(env));
    await store.upsert("spark-set", "a password someone chose", "agent");
    mkdirSync(credentialsDir(env), { recursive: true, mode: 0o700 });
    writeFileSync(join(credentialsDir(env), "spark-set.json"), JSON.stringify({ account: "spark-set", password: "a password someone chose" }), { mode: 0o600 });
    expect((await localCredentials("spark-set", "agent", env)).password).toBe("a password someone chose");
    expect(store.get("spark-set")!.hash).toMatch(/^scrypt\$/);
  });
});
