/**
 * `sandbox: { kind: podman }` as a {@link SandboxedCommand} (docs/sandbox.md, "podman"): the
 * agent's image (built from its Containerfile when its content hash is new), the agent's
 * directory, its CLI's folders, `read_only`/`read_write` and the IRC-tools socket mounted at the
 * same paths; protected paths that a mount would show are covered (an empty tmpfs for a folder,
 * /dev/null for a file); with `network: off`, `--network none` and the egress bridge.
 *
 * The image is made ready synchronously at the first command of a new hash (`podman build`
 * blocks the daemon while it runs: build it beforehand with `podman build` for a big image).
 */
import { execFileSync } from "node:child_process";
import { homedir } from "node:os";
import { dirname, isAbsolute, normalize, relative, sep } from "node:path";
import { isWithin, realPath } from "../approvals/real-path.js";
import { configuredPaths } from "./configured-paths.js";
import type { EgressOrigin } from "./egress-origins.js";
import { podmanBuildArgs, podmanImageName, podmanRepository } from "./podman-image.js";
import { podmanRunCommand, type PodmanMount } from "./podman-run.js";
import { isDirectoryPath, safeRealpath } from "./program-paths.js";
import type { SandboxConfig } from "./sandbox-config.js";
import type { SandboxContext, SandboxedCommand } from "./sandbox-command.js";
import { sandboxUnavailable } from "./sandbox-errors.js";

/** Images made ready in this process (by name): built, or found, once. */
const ready = new Set<string>();

/** The `podman run` command for `argv` in the agent's container; `egress` for `network: off`. */
export function podmanSandboxCommand(spec: SandboxConfig, argv: readonly string[], ctx: SandboxContext, egress?: { socket: string; allow: readonly EgressOrigin[] }): SandboxedCommand {
  const env = ctx.env;
  const home = env.HOME && isAbsolute(env.HOME) ? normalize(env.HOME) : homedir();
  const containerfile = spec.containerfile ? realPath(spec.containerfile.startsWith("~/") ? `${home}${spec.containerfile.slice(1)}` : spec.containerfile, ctx.directory) : null;
  if (!spec.image && !containerfile) throw sandboxUnavailable("podman", "sandbox.kind podman needs image: or containerfile:", "Add image: <name> or containerfile: <path> to the agent's sandbox:.");
  const image = podmanImageName(ctx.nick, { ...(spec.image ? { image: spec.image } : {}), ...(containerfile ? { containerfile } : {}) });
  if (containerfile && !ready.has(image)) {
    ensureBuiltSync(ctx.nick, image, containerfile);
    ready.add(image);
  }
  const mounts: PodmanMount[] = [];
  const own: string[] = [];
  for (const dir of ctx.agentPaths.dirs) {
    own.push(dir);
    mounts.push({ source: dir });
  }
  for (const file of ctx.agentPaths.files ?? []) if (safeRealpath(file) !== null) (own.push(file), mounts.push({ source: file }));
  for (const c of configuredPaths(ctx.nick, spec, ctx.directory, home, ctx.protectedPaths)) mounts.push({ source: c.real, readOnly: c.access === "ro" });
  for (const b of ctx.extra?.binds ?? []) mounts.push({ source: b.source, ...(b.target ? { target: b.target } : {}), readOnly: (b.access ?? "ro") === "ro" });
  mounts.push({ source: ctx.toolsSocket });
  // Protected paths a mount (the agent's directory most of all) would show: covered.
  const shown = [ctx.directory, ...mounts.map((m) => m.source)];
  const covers: PodmanMount[] = [];
  for (const entry of ctx.protectedPaths.entries) {
    const r = safeRealpath(realPath(entry.path, "/"));
    if (r === null || own.some((o) => isWithin(r, o))) continue;
    for (const s of shown) {
      if (!isWithin(r, s)) continue;
      const inside = normalize(`${s}${sep}${relative(s, r)}`);
      covers.push(isDirectoryPath(r) ? { source: "tmpfs", target: inside } : { source: "/dev/null", target: inside, readOnly: true });
    }
  }
  const out: Record<string, string | undefined> = { ...env };
  delete out.SSH_AUTH_SOCK;
  const cmd = podmanRunCommand({
    agent: ctx.nick,
    image,
    directory: ctx.directory,
    mounts: [...mounts, ...covers.filter((c) => c.source !== "tmpfs")],
    tmpfs: covers.filter((c) => c.source === "tmpfs").map((c) => c.target!),
    network: spec.network,
    ...(egress ? { egress } : {}),
    env: out,
    argv,
    ...(process.getuid ? { uid: process.getuid() } : {}),
  });
  if (ctx.cwd && ctx.cwd !== ctx.directory) cmd.args.splice(cmd.args.indexOf("--workdir") + 1, 1, ctx.cwd);
  // podman itself runs with the daemon's environment; only the `--env NAME`s reach the container.
  return { argv: ["podman", ...cmd.args], env: { ...env, ...cmd.env } };
}

/** Builds the image when podman has none of that name, then removes the agent's older ones. */
function ensureBuiltSync(nick: string, image: string, containerfile: string): void {
  const podman = (args: string[]) => execFileSync("podman", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 16 * 1024 * 1024 });
  let exists = true;
  try {
    podman(["image", "exists", image]);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") throw sandboxUnavailable("podman", "podman is not installed", "Install podman: sudo apt-get install podman (Debian, Ubuntu); or use sandbox: bwrap.");
    exists = false;
  }
  if (!exists) {
    try {
      podman(podmanBuildArgs(nick, image, containerfile, dirname(containerfile)));
    } catch (err) {
      const e = err as { stderr?: string; message: string };
      throw sandboxUnavailable("podman", `podman build of ${containerfile} failed: ${(e.stderr ?? e.message).trim().split("\n").at(-1)}`, `Run: podman ${podmanBuildArgs(nick, image, containerfile, dirname(containerfile)).join(" ")}`);
    }
  }
  try {
    const list = podman(["images", "--filter", `reference=${podmanRepository(nick)}`, "--format", "{{.Repository}}:{{.Tag}}"]);
    for (const old of list.split("\n").map((l) => l.trim()).filter((l) => l && l !== image && !l.endsWith(":<none>"))) {
      try {
        podman(["rmi", old]);
      } catch {
        // still used by a container: kept
      }
    }
  } catch {
    // pruning is best effort
  }
}
