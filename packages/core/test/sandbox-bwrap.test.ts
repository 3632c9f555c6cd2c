/**
 * The bwrap argv builder (sandbox/bwrap-args.ts) run in REAL bubblewrap boxes: a world with a
 * private HOME (SSH key, two agent CLIs' folders), a culture home (credentials, state with a
 * control socket), a runtime dir with this agent's tools socket and another agent's, and another
 * agent's directory. Each check runs a shell inside the box the builder made. Then the attack
 * cases on `read_only` / `read_write`: symlinks, `..`, folders that hold protected paths.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync, existsSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isCultureError, protectedPathsFor, sandboxSchema, type SandboxConfig, type SandboxContext } from "../src/index.js";
import { sandboxCommand } from "../src/sandbox/sandbox-command.js";
import { controlSocketPath, socketPath } from "../src/paths.js";

const NICK = "spark-box";
const KEY = "-----BEGIN OPENSSH PRIVATE KEY----- sandbox-test";
const PASSWORD = "operator-password-sandbox-test";

let root: string;
let env: Record<string, string | undefined>;
let home: string;
let culture: string;
let directory: string;
let other: string;
const servers: Server[] = [];

function listen(path: string): Promise<void> {
  // The probes hang up at once: a reset is expected.
  const server = createServer((c) => c.on("error", () => undefined).end("pong\n"));
  servers.push(server);
  return new Promise((resolve) => server.listen(path, resolve));
}

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "culture-sbx-")));
  home = join(root, "home");
  culture = join(root, "culture");
  directory = join(root, "project");
  other = join(root, "other-project");
  for (const d of [join(home, ".ssh"), join(home, ".codex"), join(home, ".claude"), join(culture, "credentials"), join(culture, "run"), directory, other]) mkdirSync(d, { recursive: true });
  writeFileSync(join(home, ".ssh", "id_rsa"), `${KEY}\n`);
  writeFileSync(join(home, ".codex", "auth.json"), '{"own":"codex credentials"}\n');
  writeFileSync(join(home, ".claude", ".credentials.json"), '{"other":"claude credentials"}\n');
  writeFileSync(join(home, "notes.txt"), "private notes\n");
  writeFileSync(join(culture, "credentials", "spark-operator.json"), JSON.stringify({ password: PASSWORD }));
  writeFileSync(join(other, "secret.txt"), "the other agent's work\n");
  writeFileSync(join(directory, "agents.yaml"), `agents: [{nick: ${NICK}}]  # sasl password: ${PASSWORD}\n`);
  writeFileSync(join(directory, "readme.txt"), "project file\n");
  env = { PATH: process.env.PATH, HOME: home, CULTURE_HOME: culture, CULTURE_NICK: NICK, SSH_AUTH_SOCK: join(root, "agent.sock") };
  mkdirSync(join(culture, "state", `agent-${NICK}`), { recursive: true });
  await listen(socketPath(NICK, env));
  await listen(socketPath("spark-other", env));
  await listen(controlSocketPath(NICK, env));
});

afterAll(async () => {
  for (const s of servers) await new Promise((r) => s.close(r));
  rmSync(root, { recursive: true, force: true });
});

function context(over: Partial<SandboxContext> = {}): SandboxContext {
  const config = { agents: [{ nick: NICK, directory }, { nick: "spark-other", directory: other }], filepath: join(directory, "agents.yaml") };
  return {
    nick: NICK,
    directory,
    env,
    toolsSocket: socketPath(NICK, env),
    protectedPaths: protectedPathsFor(config as unknown as Parameters<typeof protectedPathsFor>[0], { nick: NICK, directory }, [], env),
    agentPaths: { dirs: [join(home, ".codex")] },
    ...over,
  };
}

const spec = (s: unknown): SandboxConfig => sandboxSchema.parse(s) as SandboxConfig;

/** Runs `script` with sh in the box; returns its output (stdout and stderr) and status. */
async function inBox(script: string, sandbox: SandboxConfig = spec("bwrap"), ctx: SandboxContext = context()): Promise<{ out: string; status: number | null }> {
  const cmd = sandboxCommand(sandbox, ["sh", "-c", script], ctx);
  expect(cmd.argv[0]).toMatch(/\/bwrap$/);
  // Not spawnSync: a test's servers live in this process and must keep answering.
  const child = spawn(cmd.argv[0]!, cmd.argv.slice(1), { env: cmd.env as NodeJS.ProcessEnv, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (out += d.toString()));
  const status = await new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return { out, status };
}

/** A node one-liner that connects to a Unix socket and prints CONNECTED or the error code. */
const connect = (path: string) => `node -e 'require("net").connect(process.argv[1]).on("connect",()=>{console.log("CONNECTED");process.exit(0)}).on("error",(e)=>console.log("ERR "+e.code))' '${path}'`;

describe("sandbox: bwrap, in a real box", () => {
  it("hides the SSH key, culture's credentials, the rest of HOME and another agent's directory", async () => {
    const r = await inBox(
      `cat '${home}/.ssh/id_rsa'; cat '${culture}/credentials/spark-operator.json'; cat '${home}/notes.txt'; ls '${other}'; cat '${other}/secret.txt'; echo done`,
    );
    expect(r.out).toContain("done");
    expect(r.out).not.toContain(KEY);
    expect(r.out).not.toContain(PASSWORD);
    expect(r.out).not.toContain("private notes");
    expect(r.out).not.toContain("the other agent's work");
    expect(r.out).toMatch(/id_rsa: No such file or directory/);
    expect(r.out).toMatch(/spark-operator\.json: No such file or directory/);
  });

  it("gives the agent its directory read-write and its CLI's folder (credentials included), but not another CLI's credentials or the config file", async () => {
    const r = await inBox(`echo made-inside > made.txt && cat readme.txt && cat '${home}/.codex/auth.json' && echo new > '${home}/.codex/session.jsonl'; cat '${home}/.claude/.credentials.json'; cat agents.yaml; echo done`);
    expect(r.out).toContain("project file");
    expect(r.out).toContain("own");
    expect(r.out).not.toContain("claude credentials");
    expect(r.out).not.toContain(PASSWORD);
    expect(r.out).toContain("done");
    expect(readFileSync(join(directory, "made.txt"), "utf8")).toBe("made-inside\n");
    expect(readFileSync(join(home, ".codex", "session.jsonl"), "utf8")).toBe("new\n");
    // The config file in the project is covered, not deleted.
    expect(readFileSync(join(directory, "agents.yaml"), "utf8")).toContain(PASSWORD);
  });

  it("keeps the system read-only, /tmp private and the SSH agent's name out of the environment", async () => {
    const r = await inBox(`touch /usr/culture-x; echo inside > /tmp/private.txt && cat /tmp/private.txt; echo "sock=[$SSH_AUTH_SOCK]"; ls '${root}'`);
    expect(r.out).toMatch(/Read-only file system/);
    expect(r.out).toContain("inside");
    expect(r.out).toContain("sock=[]");
    expect(existsSync("/tmp/private.txt")).toBe(false);
    // The host's /tmp (where this world lives) shows only the folders bound back, not their neighbours.
    expect(r.out).toContain("project");
    expect(r.out).not.toContain("other-project");
  });

  it("reaches this agent's tools socket only: not another agent's, not the control socket", async () => {
    const r = await inBox(`${connect(socketPath(NICK, env))}; ${connect(socketPath("spark-other", env))}; ${connect(controlSocketPath(NICK, env))}`);
    const lines = r.out.trim().split("\n");
    expect(lines).toEqual(["CONNECTED", "ERR ENOENT", "ERR ENOENT"]);
  });

  it("an agent whose directory holds culture's home: still only its own socket, and no credentials or state", async () => {
    const r = await inBox(
      `${connect(socketPath(NICK, env))}; ${connect(socketPath("spark-other", env))}; ${connect(controlSocketPath(NICK, env))}; cat '${culture}/credentials/spark-operator.json'; ls '${culture}/state'`,
      spec("bwrap"),
      context({ directory: root, cwd: root }),
    );
    expect(r.out.trim().split("\n").slice(0, 3)).toEqual(["CONNECTED", "ERR ENOENT", "ERR ENOENT"]);
    expect(r.out).not.toContain(PASSWORD);
    expect(r.out).not.toContain(`agent-${NICK}`);
  });

  it("runs with no capabilities, in its own pid namespace, and cannot undo a cover", async () => {
    const r = await inBox(`grep CapEff /proc/self/status; ls /proc | grep -c '^[0-9]'; umount agents.yaml; echo umount=$?`);
    expect(r.out).toMatch(/CapEff:\s+0000000000000000/);
    expect(r.out).toMatch(/umount=(1|32)/);
    // Only the box's few processes (bwrap's init, sh, grep/ls), not the host's.
    const count = Number(/\n(\d+)\n/.exec(r.out)?.[1] ?? "999");
    expect(count).toBeLessThan(10);
  });

  it("network off: a loopback server outside cannot be reached; network on: it can", async () => {
    const server = createServer((c) => c.on("error", () => undefined).end("hello from outside\n"));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as { port: number }).port;
    const probe = `node -e 'require("net").connect(${port},"127.0.0.1").on("data",(d)=>{process.stdout.write(d);process.exit(0)}).on("error",(e)=>console.log("ERR "+e.code))'`;
    try {
      expect((await inBox(probe, spec({ kind: "bwrap", network: "on" }))).out).toContain("hello from outside");
      const off = await inBox(`${probe}; ${connect(socketPath(NICK, env))}`, spec({ kind: "bwrap", network: "off" }));
      expect(off.out).not.toContain("hello from outside");
      expect(off.out).toMatch(/ERR (ECONNREFUSED|ENETUNREACH)/);
      // The IRC tools socket still works without a network.
      expect(off.out).toContain("CONNECTED");
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it("a program on PATH in HOME (a wrapper script in ~/bin): its folder comes back read-only, HOME does not", async () => {
    const bin = join(home, "bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, "culture"), "#!/bin/sh\necho wrapper-ran\n", { mode: 0o755 });
    const withBin = { ...env, PATH: `${bin}:${env.PATH}` };
    const r = await inBox(`culture; cat ~/.ssh/id_rsa; cat ~/notes.txt; touch ~/bin/x; echo done`, spec("bwrap"), context({ env: withBin }));
    expect(r.out).toContain("wrapper-ran");
    expect(r.out).not.toContain(KEY);
    expect(r.out).not.toContain("private notes");
    expect(r.out).toMatch(/Read-only file system/);
    rmSync(bin, { recursive: true, force: true });
  });

  it("read_only and read_write: a symlink is bound where it really leads, and read_only stays read-only", async () => {
    const shared = join(root, "shared-docs");
    mkdirSync(shared, { recursive: true });
    writeFileSync(join(shared, "doc.txt"), "shared doc\n");
    symlinkSync(shared, join(directory, "docs-link"));
    const cache = join(root, "build-cache");
    mkdirSync(cache, { recursive: true });
    const r = await inBox(`cat '${shared}/doc.txt'; echo x > '${shared}/new.txt'; echo built > '${cache}/out'; echo done`, spec({ kind: "bwrap", read_only: ["docs-link"], read_write: [cache] }));
    expect(r.out).toContain("shared doc");
    expect(r.out).toMatch(/Read-only file system/);
    expect(readFileSync(join(cache, "out"), "utf8")).toBe("built\n");
  });
});

describe("read_only / read_write entries that would show a protected path are refused", () => {
  function refused(sandbox: unknown): string {
    try {
      sandboxCommand(spec(sandbox), ["true"], context());
    } catch (err) {
      expect(isCultureError(err, "E_SANDBOX_PATH")).toBe(true);
      return (err as Error).message;
    }
    throw new Error("not refused");
  }

  it("a path that is a protected folder, or is inside one", () => {
    expect(refused({ kind: "bwrap", read_only: ["~/.ssh"] })).toMatch(/sandbox\.read_only\[0\] "~\/\.ssh" is refused: it is a protected path \(SSH keys\)/);
    expect(refused({ kind: "bwrap", read_only: [join(culture, "credentials", "spark-operator.json")] })).toMatch(/it is inside .*credentials, a protected path \(culture credentials\)/);
    expect(refused({ kind: "bwrap", read_write: [other] })).toMatch(/another agent's directory/);
  });

  it("a folder that holds one (HOME, culture's home, the parent of another agent's directory)", () => {
    expect(refused({ kind: "bwrap", read_only: ["~"] })).toMatch(/read_only\[0\] "~" is refused: it holds .*\.ssh/);
    expect(refused({ kind: "bwrap", read_write: [culture] })).toMatch(/read_write\[0\] .* it holds .*culture/);
    expect(refused({ kind: "bwrap", read_only: ["/"] })).toMatch(/refused: it holds/);
  });

  it("a symlink that leads to one is judged by where it leads", () => {
    symlinkSync(join(home, ".ssh"), join(directory, "keys"));
    expect(refused({ kind: "bwrap", read_only: ["keys"] })).toMatch(/"keys" is refused: it is a protected path \(SSH keys\) \[real path: .*\/home\/\.ssh\]/);
  });

  it("`..` is resolved before the check", () => {
    expect(refused({ kind: "bwrap", read_only: ["../home/.ssh"] })).toMatch(/"\.\.\/home\/\.ssh" is refused: it is a protected path \(SSH keys\)/);
    expect(refused({ kind: "bwrap", read_write: [`${directory}/../other-project`] })).toMatch(/another agent's directory/);
  });

  it("a path that does not exist", () => {
    expect(refused({ kind: "bwrap", read_only: ["/no/such/folder"] })).toMatch(/"\/no\/such\/folder" is refused: \/no\/such\/folder does not exist/);
  });
});

describe("the sandbox: setting", () => {
  it("none leaves the command alone", () => {
    const cmd = sandboxCommand(spec("none"), ["codex", "app-server"], context());
    expect(cmd.argv).toEqual(["codex", "app-server"]);
  });

  it("bwrap's argv: system read-only, HOME hidden, namespaces, no capabilities, dies with the daemon", () => {
    const argv = sandboxCommand(spec("bwrap"), ["sh", "-c", "true"], context()).argv;
    const text = argv.join(" ");
    expect(text).toContain("--ro-bind / /");
    // HOME is under /tmp here: hiding /tmp hides it.
    expect(text).toContain("--tmpfs /tmp");
    expect(text).toContain("--tmpfs /home");
    expect(text).toContain("--unshare-all --share-net --die-with-parent --new-session --cap-drop ALL");
    // The program is named by its absolute path (PATH entries may be hidden inside).
    expect(argv.slice(argv.indexOf("--"))).toEqual(["--", argv[argv.indexOf("--") + 1], "-c", "true"]);
    expect(argv[argv.indexOf("--") + 1]).toMatch(/^\/.*\/sh$/);
    expect(sandboxCommand(spec({ kind: "bwrap", network: "off" }), ["true"], context()).argv).not.toContain("--share-net");
  });
});
