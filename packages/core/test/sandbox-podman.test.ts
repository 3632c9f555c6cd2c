/**
 * `sandbox: { kind: podman }` without running a container: the content-hash image name, when
 * culture builds and prunes, the `podman run` command line, and what the doctor makes of
 * podman's real error lines (captured on this machine kind, docs/sandbox.md). The doctor's
 * real `podman run` is in sandbox-podman-doctor.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { containerfileHash, ensurePodmanImage, podmanImageName, podmanRepository, type PodmanExec } from "../src/sandbox/podman-image.js";
import { podmanRunCommand, SANDBOX_EGRESS_SOCKET } from "../src/sandbox/podman-run.js";
import { diagnosePodmanRun, podmanDoctorChecks, podmanErrorLine } from "../src/sandbox/podman-doctor.js";

describe("the image named by its content", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "podman-ctx-"));
    writeFileSync(join(dir, "Containerfile"), "FROM docker.io/library/node:20-slim\nCOPY tools /tools\n");
    mkdirSync(join(dir, "tools"));
    writeFileSync(join(dir, "tools", "a.sh"), "echo a\n");
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("is localhost/culture-sandbox-<nick>:<16 hex digits>, the same for the same content", () => {
    const name = podmanImageName("spark-Claude", { containerfile: join(dir, "Containerfile") });
    expect(name).toMatch(/^localhost\/culture-sandbox-spark-claude:[0-9a-f]{16}$/);
    const copy = mkdtempSync(join(tmpdir(), "podman-ctx-"));
    writeFileSync(join(copy, "Containerfile"), "FROM docker.io/library/node:20-slim\nCOPY tools /tools\n");
    mkdirSync(join(copy, "tools"));
    writeFileSync(join(copy, "tools", "a.sh"), "echo a\n");
    expect(containerfileHash(join(copy, "Containerfile"))).toBe(containerfileHash(join(dir, "Containerfile")));
    rmSync(copy, { recursive: true, force: true });
  });

  it.each([
    ["the Containerfile changes", (d: string) => writeFileSync(join(d, "Containerfile"), "FROM docker.io/library/node:22-slim\n")],
    ["a context file changes", (d: string) => writeFileSync(join(d, "tools", "a.sh"), "echo b\n")],
    ["a context file is added", (d: string) => writeFileSync(join(d, "tools", "b.sh"), "")],
    ["a context file is renamed", (d: string) => (rmSync(join(d, "tools", "a.sh")), writeFileSync(join(d, "tools", "c.sh"), "echo a\n"))],
    ["a file becomes executable", (d: string) => writeFileSync(join(d, "tools", "a.sh"), "echo a\n", { mode: 0o755 })],
    ["a symlink's target changes", (d: string) => symlinkSync("/etc/passwd", join(d, "tools", "link"))],
  ])("changes when %s", (_what, change) => {
    const before = containerfileHash(join(dir, "Containerfile"));
    if (_what === "a file becomes executable") rmSync(join(dir, "tools", "a.sh"));
    change(dir);
    expect(containerfileHash(join(dir, "Containerfile"))).not.toBe(before);
  });

  it("ignores .git (history is not build input)", () => {
    const before = containerfileHash(join(dir, "Containerfile"));
    mkdirSync(join(dir, ".git"));
    writeFileSync(join(dir, ".git", "HEAD"), "ref: refs/heads/main\n");
    expect(containerfileHash(join(dir, "Containerfile"))).toBe(before);
  });

  it("a named image is used as it is; neither image nor containerfile is an error", () => {
    expect(podmanImageName("a", { image: "docker.io/library/node:20" })).toBe("docker.io/library/node:20");
    expect(() => podmanImageName("a", {})).toThrow(/image: or containerfile:/);
    expect(podmanRepository("../Evil Nick")).toBe("localhost/culture-sandbox-evil-nick");
  });

  it("builds when no image of the hash exists, then removes the agent's older images", async () => {
    const calls: string[][] = [];
    const name = podmanImageName("spark", { containerfile: join(dir, "Containerfile") });
    const exec: PodmanExec = async (args) => {
      calls.push(args);
      if (args[0] === "image" && args[1] === "exists") throw Object.assign(new Error("exit 1"), { stderr: "" });
      if (args[0] === "images") return { stdout: `${name}\nlocalhost/culture-sandbox-spark:0123456789abcdef\nlocalhost/culture-sandbox-spark:<none>\n`, stderr: "" };
      return { stdout: "", stderr: "" };
    };
    const r = await ensurePodmanImage("spark", { containerfile: join(dir, "Containerfile") }, exec);
    expect(r).toEqual({ image: name, built: true, pruned: ["localhost/culture-sandbox-spark:0123456789abcdef"] });
    expect(calls).toContainEqual(["build", "--tag", name, "--file", join(dir, "Containerfile"), "--label", "culture.sandbox.agent=spark", dir]);
    expect(calls).toContainEqual(["images", "--filter", "reference=localhost/culture-sandbox-spark", "--format", "{{.Repository}}:{{.Tag}}"]);
    expect(calls.at(-1)).toEqual(["rmi", "localhost/culture-sandbox-spark:0123456789abcdef"]);
  });

  it("does not build when the image of the hash exists", async () => {
    const calls: string[][] = [];
    const exec: PodmanExec = async (args) => (calls.push(args), { stdout: "", stderr: "" });
    const r = await ensurePodmanImage("spark", { containerfile: join(dir, "Containerfile") }, exec);
    expect(r.built).toBe(false);
    expect(calls.some((a) => a[0] === "build")).toBe(false);
  });
});

describe("the podman run command line", () => {
  const plan = {
    agent: "spark-claude",
    image: "localhost/culture-sandbox-spark-claude:0123456789abcdef",
    directory: "/home/u/proj",
    mounts: [
      { source: "/run/user/1000/culture/spark-claude.tools.sock" },
      { source: "/home/u/.claude", readOnly: false },
      { source: "/usr/lib/node_modules/@anthropic-ai/claude-code", readOnly: true },
    ],
    env: { ANTHROPIC_API_KEY: "sk-secret", PATH: "/host/bin", "BAD NAME": "x", UNSET: undefined },
    argv: ["claude", "--output-format", "stream-json"],
    uid: 1000,
  };

  it("mounts the directory at the same path, the sockets and folders, drops capabilities; secrets stay off the command line", () => {
    const cmd = podmanRunCommand({ ...plan, network: "on" });
    expect(cmd.command).toBe("podman");
    expect(cmd.args).toEqual([
      "run", "--rm", "-i", "--init", "--replace", "--name", "culture-spark-claude", "--userns=keep-id",
      "--cap-drop=all", "--security-opt=no-new-privileges", "--tmpfs", "/tmp", "--network", "slirp4netns",
      "--volume", "/home/u/proj:/home/u/proj:rw", "--workdir", "/home/u/proj",
      "--volume", "/run/user/1000/culture/spark-claude.tools.sock:/run/user/1000/culture/spark-claude.tools.sock:rw",
      "--volume", "/home/u/.claude:/home/u/.claude:rw",
      "--volume", "/usr/lib/node_modules/@anthropic-ai/claude-code:/usr/lib/node_modules/@anthropic-ai/claude-code:ro",
      "--env", "ANTHROPIC_API_KEY",
      "localhost/culture-sandbox-spark-claude:0123456789abcdef", "claude", "--output-format", "stream-json",
    ]);
    expect(cmd.args.join(" ")).not.toContain("sk-secret");
    expect(cmd.env).toEqual({ ANTHROPIC_API_KEY: "sk-secret" });
  });

  it("network: off is --network none, with the egress socket mounted and the forwarder in front of the agent", () => {
    const cmd = podmanRunCommand({ ...plan, uid: 0, network: "off", egress: { socket: "/run/culture/spark.egress.sock", allow: [{ host: "api.anthropic.com", port: 443 }] } });
    expect(cmd.args).not.toContain("--userns=keep-id"); // rootful podman refuses keep-id
    expect(cmd.args.slice(cmd.args.indexOf("--network"), cmd.args.indexOf("--network") + 2)).toEqual(["--network", "none"]);
    expect(cmd.args).toContain(`/run/culture/spark.egress.sock:${SANDBOX_EGRESS_SOCKET}:rw`);
    const after = cmd.args.slice(cmd.args.indexOf(plan.image) + 1);
    expect(after.slice(0, 2)).toEqual(["node", "-e"]);
    expect(after.slice(3, 4)).toEqual(["--"]);
    expect(JSON.parse(after[4]!)).toEqual({ socket: SANDBOX_EGRESS_SOCKET, tunnels: [] });
    expect(after.slice(5)).toEqual(["--", "claude", "--output-format", "stream-json"]);
  });
});

describe("what the doctor makes of podman's errors", () => {
  // The lines podman 4.3.1 printed on this machine kind (Debian 12, cgroups hybrid, in a container).
  const seen = {
    crun: "Error: crun: setrlimit `RLIMIT_NOFILE`: Operation not permitted: OCI permission denied",
    hybrid: "Error: OCI runtime error: crun: cgroups in hybrid mode not supported, drop all controllers from cgroupv2",
    runc: 'Error: default OCI runtime "runc" not found: invalid argument',
  };

  it("picks podman's own error line out of its output", () => {
    expect(podmanErrorLine(`WARN[0000] something\n${seen.crun}\n`)).toBe(seen.crun);
    expect(podmanErrorLine("just one line\n")).toBe("just one line");
  });

  it.each([
    [seen.crun, /may not set RLIMIT_NOFILE/, /default_ulimits = \[\]/],
    [seen.hybrid, /hybrid mode/, /systemd\.unified_cgroup_hierarchy=1/],
    [seen.runc, /runc, which is not installed/, /apt-get install -y runc/],
    ["Error: cannot find UID/GID for user u: no subuid ranges found", /subordinate/, /usermod --add-subuids/],
    ["Error: something new", /cannot run a container/, /podman info/],
  ])("%s", (line, meaning, fix) => {
    const d = diagnosePodmanRun(`${line}\n`);
    expect(d.line).toBe(line);
    expect(d.meaning).toMatch(meaning);
    expect(d.fix).toMatch(fix);
    expect(d.fix).toMatch(/kind: bwrap/);
  });

  it("says podman is not installed, with the install command", async () => {
    const exec: PodmanExec = async () => {
      throw Object.assign(new Error("spawn podman ENOENT"), { code: "ENOENT" });
    };
    expect(await podmanDoctorChecks(exec)).toEqual([
      expect.objectContaining({ ok: false, name: "podman", detail: "podman is not installed", fix: expect.stringMatching(/^apt-get install -y podman/) }),
    ]);
  });
});

describe("an agent's podman sandbox (agentSandboxFor, a named image: nothing is built)", () => {
  it("mounts the directory, the tools socket and the CLI folders, covers protected paths inside them, and with network off adds the bridge", async () => {
    const { agentSandboxFor } = await import("../src/sandbox/agent-sandbox.js");
    const { withEgressBridge, closeEgressBridge, egressSocketPath } = await import("../src/sandbox/egress-bridge.js");
    const { sandboxSchema } = await import("../src/sandbox/sandbox-config.js");
    const root = mkdtempSync(join(tmpdir(), "podman-agent-"));
    const home = join(root, "culture");
    mkdirSync(join(home, "run"), { recursive: true });
    mkdirSync(join(home, "credentials"));
    writeFileSync(join(home, "credentials", "server.yaml"), "secret: 1\n");
    const env = { PATH: process.env.PATH, HOME: join(root, "home"), CULTURE_HOME: home, ANTHROPIC_API_KEY: "sk-x" };
    mkdirSync(env.HOME, { recursive: true });
    const spec = sandboxSchema.parse({ kind: "podman", image: "docker.io/library/node:20", network: "off" }) as never;
    // The agent's directory is culture's home (as in the test daemons): its credentials must be covered.
    const agent = { nick: "spark-pod", directory: home, sandbox: spec };
    try {
      const base = agentSandboxFor({ nick: "spark-pod", config: { agents: [agent as never], filepath: null, sandbox: spec }, agent, backend: { sandboxPaths: (_o: unknown, _e: unknown, h: string) => ({ dirs: [join(h, ".claude")] }) }, backendOptions: {}, env, permissions: { protected_paths: [] } })!;
      const sandbox = withEgressBridge(base, { nick: "spark-pod", backend: "claude", backendOptions: {}, env, allow: [] });
      const cmd = sandbox.command(["claude", "--print"], env);
      const args = cmd.argv.slice(1);
      expect(cmd.argv[0]).toBe("podman");
      expect(args).toContain(`${home}:${home}:rw`);
      expect(args).toContain(`${join(env.HOME, ".claude")}:${join(env.HOME, ".claude")}:rw`);
      expect(args).toContain(`${join(home, "run", "culture-spark-pod.sock")}:${join(home, "run", "culture-spark-pod.sock")}:rw`);
      expect(args.slice(args.indexOf(join(home, "credentials")) - 1, args.indexOf(join(home, "credentials")) + 1)).toEqual(["--tmpfs", join(home, "credentials")]);
      expect(args.slice(args.indexOf("--network"), args.indexOf("--network") + 2)).toEqual(["--network", "none"]);
      expect(args).toContain(`${egressSocketPath("spark-pod", env)}:/run/culture/egress.sock:rw`);
      expect(args.slice(args.indexOf("docker.io/library/node:20") + 1, args.indexOf("docker.io/library/node:20") + 3)).toEqual(["node", "-e"]);
      expect(args.join(" ")).not.toContain("sk-x");
      expect(cmd.env.ANTHROPIC_API_KEY).toBe("sk-x");
    } finally {
      await closeEgressBridge("spark-pod", env);
      rmSync(root, { recursive: true, force: true });
    }
  });
});
