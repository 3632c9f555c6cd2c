/**
 * A third-party backend's whole life, through a real npm registry: `culture backend create
 * myagent --install` (the built CLI, as a subprocess), `npm test` in the new package (culture's
 * conformance kit), `npm publish` to a local verdaccio, `npm install culture-backend-myagent`
 * in a fresh project and in a global prefix, `culture backend list` finding it, and an agent
 * with `agent: myagent` answering a mention on a real IRC server (ngircd).
 *
 * The registry: verdaccio with storage in a temp dir and no uplinks. `@culture/core` is not on
 * the public registry yet, so it is packed from packages/core and published to verdaccio, and
 * the `@culture` scope points there (a userconfig npmrc); everything else (zod, vitest, tsup,
 * core's own dependencies) comes from the default registry. The unscoped backend is published
 * to and installed from verdaccio with `--registry`; since verdaccio cannot serve its peers
 * (zod), those are installed first and the backend with `--legacy-peer-deps`.
 *
 * One verdaccio and one npm cache serve the file; the tests run in order and build on each
 * other (publish needs the package the first test made). npm downloads are the slow part:
 * without the registry or the network the tests fail with npm's own output — they never skip.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectRawClient, startIrcServer, type RawIrcClient, type RunningIrcServer } from "@culture/core/testing";

const MAIN = fileURLToPath(new URL("../dist/main.js", import.meta.url));
const TEMPLATE = fileURLToPath(new URL("../templates/backend", import.meta.url));
const CORE_PACKAGE = fileURLToPath(new URL("../../core", import.meta.url));
const SERVER_PACKAGE = fileURLToPath(new URL("../../server", import.meta.url));
const VERDACCIO = fileURLToPath(new URL("../../../node_modules/verdaccio/bin/verdaccio", import.meta.url));
/** npm installs download from the network: generous ceilings, not expectations. */
const NPM_TIMEOUT = 240_000;
const NICK = "spark-myagent";

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

let root: string;
let registry: string;
let verdaccio: ChildProcess | undefined;
let verdaccioLog = "";
/** The environment of every npm and culture subprocess (see {@link baseEnv}). */
let env: NodeJS.ProcessEnv;
/** The package `culture backend create` made. */
let pkg: string;
/** The fresh project that installs the published backend. */
let project: string;

/**
 * The parent's environment without npm's, vitest's and culture's own variables: `npx vitest`
 * exports npm_config_* (cache, prefix, userconfig...) that would override the test's npmrc and
 * point npm at the monorepo, and a nested vitest must not think it is a worker of this one.
 */
function baseEnv(): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(npm_|vitest|INIT_CWD$|CULTURE_|FORCE_COLOR$)/i.test(key)) continue;
    out[key] = value;
  }
  // Plain output to assert on.
  out.NO_COLOR = "1";
  return out;
}

/** Runs a command; never rejects (the caller asserts, with the output in the message). */
function run(command: string, args: string[], cwd: string, extraEnv: NodeJS.ProcessEnv = {}, timeoutMs = NPM_TIMEOUT): Promise<Run> {
  return new Promise((done) => {
    const child = spawn(command, args, { cwd, env: { ...env, ...extraEnv }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("error", (err) => {
      clearTimeout(timer);
      done({ code: null, stdout, stderr: `${stderr}\n${err.message}` });
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

const culture = (args: string[], cwd: string, extraEnv: NodeJS.ProcessEnv = {}) => run(process.execPath, [MAIN, ...args], cwd, extraEnv, 60_000);

/** Runs npm and fails with its output (and a hint about the registry) unless it exits 0. */
async function npm(args: string[], cwd: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<Run> {
  const result = await run("npm", args, cwd, extraEnv);
  if (result.code !== 0) {
    throw new Error(
      `npm ${args.join(" ")} failed in ${cwd} (exit ${result.code}). These tests need the npm registry ` +
        `(network) for zod, vitest and tsup, and the local verdaccio at ${registry} for @culture/*.\n` +
        `--- stdout\n${result.stdout.slice(-4000)}\n--- stderr\n${result.stderr.slice(-4000)}`,
    );
  }
  return result;
}

function listFiles(dir: string, prefix = ""): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true })
    .flatMap((e) => {
      const rel = prefix ? `${prefix}/${e.name}` : e.name;
      return e.isDirectory() ? listFiles(dir, rel) : [rel];
    })
    .sort();
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

async function startVerdaccio(): Promise<void> {
  const dir = join(root, "verdaccio");
  mkdirSync(join(dir, "storage"), { recursive: true });
  const config = join(dir, "config.yaml");
  writeFileSync(
    config,
    [
      `storage: ${join(dir, "storage")}`,
      `auth: { htpasswd: { file: ${join(dir, "htpasswd")} } }`,
      `uplinks: {}`,
      `packages: { "**": { access: $all, publish: $all } }`,
      `log: { type: stdout, level: warn }`,
      "",
    ].join("\n"),
  );
  const port = await freePort();
  registry = `http://127.0.0.1:${port}/`;
  verdaccio = spawn(process.execPath, [VERDACCIO, "--config", config, "--listen", `127.0.0.1:${port}`], {
    env: baseEnv(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  verdaccio.stdout!.on("data", (d: Buffer) => (verdaccioLog += d.toString()));
  verdaccio.stderr!.on("data", (d: Buffer) => (verdaccioLog += d.toString()));
  for (let attempt = 0; attempt < 300; attempt++) {
    if (verdaccio.exitCode !== null) break;
    const ok = await fetch(`${registry}-/ping`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`verdaccio (${VERDACCIO}) did not answer on ${registry}-/ping (exit code ${verdaccio.exitCode}). Its output:\n${verdaccioLog}`);
}

async function stopVerdaccio(): Promise<void> {
  const child = verdaccio;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
  await exited;
  clearTimeout(timer);
}

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "culture-bc-")));
  await startVerdaccio();
  const host = registry.replace(/^http:/, "");
  writeFileSync(
    join(root, "npmrc"),
    [`@culture:registry=${registry}`, `${host}:_authToken=dummy`, `cache=${join(root, "npm-cache")}`, "fund=false", "audit=false", "update-notifier=false", ""].join(
      "\n",
    ),
  );
  mkdirSync(join(root, "run"), { recursive: true, mode: 0o700 });
  env = {
    ...baseEnv(),
    npm_config_userconfig: join(root, "npmrc"),
    CULTURE_HOME: join(root, "home"),
    XDG_RUNTIME_DIR: join(root, "run"),
    // No global prefix unless a test sets one: `npm root -g` would find this machine's.
    CULTURE_GLOBAL_MODULES: "",
  };
  // @culture/core as a user would get it from npm: packed (files: dist) and published, with
  // @culture/server, which it depends on (the embedded server's account store).
  for (const dir of [SERVER_PACKAGE, CORE_PACKAGE]) {
    const packed = await npm(["pack", "--pack-destination", root], dir);
    const tarball = packed.stdout.trim().split("\n").pop()!;
    await npm(["publish", join(root, tarball), "--registry", registry], root);
  }
}, 120_000);

afterAll(async () => {
  await stopVerdaccio();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("a third-party backend through a real npm registry", () => {
  it(
    "culture backend create myagent --install writes the template and installs it; npm test passes the conformance kit",
    async () => {
      const work = join(root, "work");
      mkdirSync(work);
      const created = await culture(["backend", "create", "myagent", "--install"], work);
      expect(created.code, `culture backend create failed:\n${created.stdout}\n${created.stderr}`).toBe(0);
      pkg = join(work, "culture-backend-myagent");
      const written = listFiles(pkg).filter((f) => !f.startsWith("node_modules/") && f !== "package-lock.json");
      const template = listFiles(TEMPLATE)
        .filter((f) => !f.startsWith("node_modules/") && !f.startsWith("dist/"))
        .map((f) => f.replace(/(^|\/)_gitignore$/, "$1.gitignore"))
        .sort();
      expect(written).toEqual(template);
      expect(created.stdout).toContain("Running npm install in culture-backend-myagent");
      expect(created.stdout).not.toMatch(/\n {2}npm install\n/); // --install did it: not a next step
      const core = JSON.parse(readFileSync(join(pkg, "node_modules/@culture/core/package.json"), "utf8"));
      expect(core.version).toBe(JSON.parse(readFileSync(join(CORE_PACKAGE, "package.json"), "utf8")).version);

      const tested = await npm(["test", "--", "--reporter=verbose"], pkg);
      expect(tested.stdout).toContain(`backend "myagent" conformance`);
      expect(tested.stdout).toMatch(/start -> sendPrompt -> onMessage -> sendPrompt resolves -> stop/);
      expect(tested.stdout).toMatch(/calls onExit with a non-zero code when the agent crashes/);
      expect(tested.stdout).toMatch(/createEvaluator runs the agent command once/);
      expect(tested.stdout).toMatch(/Tests\s+\d+ passed/);
      expect(tested.stdout).not.toMatch(/failed|skipped/);
    },
    NPM_TIMEOUT + 60_000,
  );

  it(
    "npm publish, then a fresh project installs culture-backend-myagent from the registry and culture backend list finds it",
    async () => {
      expect(pkg, "the first test must have created the package").toBeTruthy();
      await npm(["publish", "--registry", registry], pkg);
      const meta = (await (await fetch(`${registry}culture-backend-myagent`)).json()) as { "dist-tags": { latest: string } };
      expect(meta["dist-tags"].latest).toBe("0.1.0");

      project = join(root, "project");
      mkdirSync(project);
      writeFileSync(join(project, "package.json"), `${JSON.stringify({ name: "project", private: true }, null, 2)}\n`);
      await npm(["install", "@culture/core", "zod"], project);
      await npm(["install", "culture-backend-myagent", "--registry", registry, "--legacy-peer-deps"], project);
      const installed = JSON.parse(readFileSync(join(project, "node_modules/culture-backend-myagent/package.json"), "utf8"));
      expect(installed.version).toBe("0.1.0");
      expect(listFiles(join(project, "node_modules/culture-backend-myagent"))).toEqual(
        expect.arrayContaining(["agent.mjs", "dist/index.js", "dist/index.d.ts", "skill/SKILL.md", "package.json", "README.md"]),
      );
      writeFileSync(join(project, "agents.yaml"), "agents: []\n");

      const listed = await culture(["backend", "list", "--json"], project);
      expect(listed.code, listed.stderr).toBe(0);
      const mine = (JSON.parse(listed.stdout) as Record<string, unknown>[]).find((l) => l.package === "culture-backend-myagent");
      expect(mine).toMatchObject({ name: "myagent", agent: "myagent", source: "project", version: "0.1.0", apiVersion: 1, error: null });
      const table = await culture(["backend", "list"], project);
      expect(table.stdout).toMatch(/^myagent\s+myagent\s+project\s+0\.1\.0\s+1\s+culture-backend-myagent\s+\//m);
    },
    NPM_TIMEOUT,
  );

  it(
    "an agent with agent: myagent starts (culture start) and answers a mention on a real IRC server",
    async () => {
      expect(project, "the previous test must have made the project").toBeTruthy();
      let server: RunningIrcServer | undefined;
      let alice: RawIrcClient | undefined;
      try {
        server = await startIrcServer("ngircd");
        writeFileSync(
          join(project, "agents.yaml"),
          [
            `server: { name: spark, host: 127.0.0.1, port: ${server.port} }`,
            "agents:",
            `  - nick: ${NICK}`,
            "    agent: myagent",
            "    channels: ['#general']",
            "    stop_grace_ms: 1000",
            "",
          ].join("\n"),
        );
        const checked = await culture(["config", "check"], project);
        expect(checked.code, checked.stderr).toBe(0);

        const started = await culture(["start", NICK], project);
        expect(started.code, `${started.stdout}\n${started.stderr}`).toBe(0);
        expect(started.stdout).toContain(`Started ${NICK}`);

        alice = await connectRawClient(server.port, "alice");
        await alice.join("#general");
        alice.send(`PRIVMSG #general :@${NICK} hello from alice`);
        const reply = await alice.waitFor(new RegExp(`^:${NICK}!\\S+ PRIVMSG #general :stand-in agent heard: `), 30_000);
        expect(reply).toContain(`[IRC @mention in #general] <alice> @${NICK} hello from alice`);
      } finally {
        await alice?.close().catch(() => undefined);
        const stopped = await culture(["stop", NICK], project);
        await server?.stop();
        expect(stopped.code, stopped.stderr).toBe(0);
      }
    },
    120_000,
  );

  it(
    "a global install (npm install -g --prefix) is found through CULTURE_GLOBAL_MODULES",
    async () => {
      const prefix = join(root, "global");
      await npm(["install", "-g", "--prefix", prefix, "@culture/core", "zod"], root);
      await npm(["install", "-g", "--prefix", prefix, "culture-backend-myagent@0.1.0", "--registry", registry, "--legacy-peer-deps"], root);
      const elsewhere = join(root, "elsewhere");
      mkdirSync(elsewhere);
      writeFileSync(join(elsewhere, "agents.yaml"), `agents:\n  - nick: spark-global\n    agent: myagent\n`);
      const globalEnv = { CULTURE_GLOBAL_MODULES: join(prefix, "lib", "node_modules") };

      const listed = await culture(["backend", "list", "--json"], elsewhere, globalEnv);
      expect(listed.code, listed.stderr).toBe(0);
      const mine = (JSON.parse(listed.stdout) as Record<string, unknown>[]).find((l) => l.package === "culture-backend-myagent");
      expect(mine).toMatchObject({ name: "myagent", source: "global", error: null });
      const checked = await culture(["config", "check"], elsewhere, globalEnv);
      expect(checked.code, checked.stderr).toBe(0);

      const without = await culture(["config", "check"], elsewhere);
      expect(without.code).toBe(1);
      expect(without.stderr).toContain(`couldn't find the backend "myagent"`);
    },
    NPM_TIMEOUT,
  );

  it("an unpublished name fails with the not-found message", async () => {
    const missing = await run("npm", ["view", "culture-backend-ghost", "--registry", registry], root);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/E404|404/);

    const dir = join(root, "ghost-project");
    mkdirSync(dir);
    writeFileSync(join(dir, "agents.yaml"), `agents:\n  - nick: spark-ghost\n    agent: ghost\n`);
    const checked = await culture(["config", "check"], dir);
    expect(checked.code).toBe(1);
    expect(checked.stderr).toContain(`culture couldn't find the backend "ghost" used by agent "spark-ghost"`);
    expect(checked.stderr).toContain("Tried: @culture/backend-ghost, culture-backend-ghost");
    expect(checked.stderr).toContain("npm install culture-backend-ghost");
    expect(checked.stderr).toContain("culture backend create ghost");
  });

  it(
    "a broken published version (throws on import) fails with the load error, not 'not found'",
    async () => {
      expect(pkg && project, "the earlier tests must have made the package and the project").toBeTruthy();
      // Version 0.2.0 of the same package, built, with an exception at import time.
      const broken = join(root, "broken");
      mkdirSync(broken);
      for (const entry of ["package.json", "dist", "skill", "agent.mjs", "README.md"]) cpSync(join(pkg, entry), join(broken, entry), { recursive: true });
      const manifest = JSON.parse(readFileSync(join(broken, "package.json"), "utf8"));
      writeFileSync(join(broken, "package.json"), JSON.stringify({ ...manifest, version: "0.2.0" }, null, 2));
      const entry = join(broken, "dist", "index.js");
      writeFileSync(entry, `throw new Error("broken on purpose in 0.2.0");\n${readFileSync(entry, "utf8")}`);
      await npm(["publish", "--ignore-scripts", "--registry", registry], broken);

      await npm(["install", "culture-backend-myagent@0.2.0", "--registry", registry, "--legacy-peer-deps"], project);
      writeFileSync(join(project, "agents.yaml"), `agents:\n  - nick: ${NICK}\n    agent: myagent\n`);
      const checked = await culture(["config", "check"], project);
      expect(checked.code).toBe(1);
      expect(checked.stderr).toContain(`culture found the backend "myagent" (culture-backend-myagent at `);
      expect(checked.stderr).toContain("but it failed to load");
      expect(checked.stderr).toContain("broken on purpose in 0.2.0");
      expect(checked.stderr).not.toContain("couldn't find");

      const listed = await culture(["backend", "list", "--json"], project);
      const mine = (JSON.parse(listed.stdout) as Record<string, unknown>[]).find((l) => l.package === "culture-backend-myagent");
      expect(mine).toMatchObject({ version: "0.2.0", source: "project", apiVersion: null });
      expect(String(mine?.error)).toContain("broken on purpose in 0.2.0");
    },
    NPM_TIMEOUT,
  );
});
