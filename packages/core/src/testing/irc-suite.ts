/**
 * The frame most end-to-end suites share: one embedded IRC server on a free loopback port for
 * the describe block, and a list of cleanups run after each test (newest first, failures
 * ignored, so one broken cleanup does not leak the rest). The test runner's hooks are passed
 * in, as the conformance kit's are, so the kit does not depend on a test framework.
 */
import { startServer, type IrcServer } from "@culture/server";

/** The hooks {@link embeddedIrcSuite} registers (vitest's, jest's, mocha's, ...). */
export interface SuiteHooks {
  beforeAll(fn: () => Promise<void>): void;
  afterAll(fn: () => Promise<void>): void;
  afterEach(fn: () => Promise<void>): void;
}

/** What {@link embeddedIrcSuite} gives a describe block. */
export interface EmbeddedIrcSuite {
  /** Run after each test, newest first. */
  cleanups: Array<() => Promise<unknown> | unknown>;
  /** The server's port (inside a test). */
  ircPort(): number;
  /** The server (inside a test). */
  irc(): IrcServer;
}

/** Registers an embedded IRC server for the describe block it is called in, and per-test cleanups. */
export function embeddedIrcSuite(hooks: SuiteHooks): EmbeddedIrcSuite {
  let server: IrcServer | undefined;
  const cleanups: EmbeddedIrcSuite["cleanups"] = [];
  hooks.beforeAll(async () => {
    server = await startServer({ host: "127.0.0.1", port: 0, stateDir: null });
  });
  hooks.afterAll(async () => {
    await server?.close();
  });
  hooks.afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await Promise.resolve().then(c).catch(() => undefined);
  });
  const irc = (): IrcServer => {
    if (!server) throw new Error("embeddedIrcSuite: the IRC server is not started yet (use it inside a test)");
    return server;
  };
  return { cleanups, irc, ircPort: () => irc().port };
}
