// What culture says when an `agent:` value is not installed: the command that installs one of
// culture's own backends, "did you mean" for a typo (never advice to install the typo), the
// acp backend for an ACP agent named as a backend, and culture's backends folder
// ($CULTURE_HOME/backends, where `culture backend add --global` installs) searched by discovery.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isCultureError, type CultureError } from "../src/errors.js";
import { backendPackageFor, installCommandFor } from "../src/discovery/known-backends.js";
import { loadBackend } from "../src/discovery/load-backend.js";
import { backendModule, linkZod, removeTempDirs, tempDir, writePackage } from "./fixtures/temp-packages.js";

let saved: { home: string | undefined; global: string | undefined };
let home: string;
let builtinFrom: string;

async function failure(promise: Promise<unknown>): Promise<CultureError> {
  try {
    await promise;
  } catch (err) {
    if (isCultureError(err)) return err;
    throw err;
  }
  throw new Error("expected the promise to reject");
}

function projectDir(): string {
  const dir = tempDir("culture-advice-proj-");
  linkZod(join(dir, "node_modules"));
  return dir;
}

beforeAll(() => {
  saved = { home: process.env.CULTURE_HOME, global: process.env.CULTURE_GLOBAL_MODULES };
  home = tempDir("culture-advice-home-");
  process.env.CULTURE_HOME = home;
  process.env.CULTURE_GLOBAL_MODULES = "";
  const install = join(tempDir("culture-advice-install-"), "node_modules");
  const core = writePackage(install, "@culture/core", { "dist/index.js": "export {};\n" });
  builtinFrom = join(core, "dist", "index.js");
});

afterAll(() => {
  for (const [key, value] of [["CULTURE_HOME", saved.home], ["CULTURE_GLOBAL_MODULES", saved.global]] as const) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  removeTempDirs();
});

describe("a backend that is not installed", () => {
  it("agent: claude names the command that installs it (project, or --global)", async () => {
    const dir = projectDir();
    const err = await failure(loadBackend("claude", { configDir: dir, nick: "spark-claude", builtinFrom }));
    expect(err.code).toBe("E_BACKEND_NOT_FOUND");
    expect(err.message).toContain("Install it:     culture backend add claude   (runs: npm install @culture/backend-claude");
    expect(err.message).toContain("culture backend add claude --global");
    expect(err.message).toContain(`${join(home, "backends")} (culture's backends folder)`);
  });

  it("a typo of a known name gets did-you-mean and no install advice", async () => {
    const err = await failure(loadBackend("claudee", { configDir: projectDir(), builtinFrom }));
    expect(err.message).toContain(`Did you mean "claude"?`);
    expect(err.message).not.toContain("backend add claudee");
    expect(err.message).not.toContain("npm install");
  });

  it("a typo of an installed third-party name gets did-you-mean too", async () => {
    const dir = projectDir();
    writePackage(join(dir, "node_modules"), "culture-backend-myagent", { "index.js": backendModule("myagent", "x") });
    const err = await failure(loadBackend("myagnet", { configDir: dir, builtinFrom }));
    expect(err.message).toContain(`Did you mean "myagent"?`);
    expect(err.message).not.toContain("npm install");
  });

  it("an ACP agent named as a backend (agent: opencode) is pointed at agent: acp with acp_command", async () => {
    const err = await failure(loadBackend("opencode", { configDir: projectDir(), builtinFrom }));
    expect(err.message).toContain(`"opencode" is an ACP agent, not a backend`);
    expect(err.message).toContain(`agent: acp\n    acp_command: ["opencode","acp"]`);
    expect(err.message).not.toContain("npm install");
  });

  it("an unknown, unrelated name gets the add command of culture-backend-<name> and create", async () => {
    const err = await failure(loadBackend("zebra", { configDir: projectDir(), builtinFrom }));
    expect(err.message).toContain("culture backend add zebra   (runs: npm install culture-backend-zebra");
    expect(err.message).toContain("culture backend create zebra");
  });
});

describe("culture's backends folder", () => {
  it("a backend installed under $CULTURE_HOME/backends is found from any project (source: home)", async () => {
    writePackage(join(home, "backends", "node_modules"), "culture-backend-homey", { "index.js": backendModule("homey", "from-home") });
    linkZod(join(home, "backends", "node_modules"));
    const loaded = await loadBackend("homey", { configDir: projectDir(), builtinFrom });
    expect(loaded.source).toBe("home");
    expect((loaded.definition as { marker?: string }).marker).toBe("from-home");
  });
});

describe("backendPackageFor / installCommandFor", () => {
  it.each([
    ["claude", "@culture/backend-claude", null],
    ["codex@0.2.0", "@culture/backend-codex", "0.2.0"],
    ["foo", "culture-backend-foo", null],
    ["culture-backend-foo@1", "culture-backend-foo", "1"],
    ["@acme/culture-backend-foo", "@acme/culture-backend-foo", null],
    ["@culture/copilot", "@culture/backend-copilot", null],
  ])("%s -> %s", (input, name, version) => {
    expect(backendPackageFor(input)).toEqual({ name, version });
  });
  it("the install command", () => expect(installCommandFor(" claude ")).toBe("culture backend add claude"));
});
