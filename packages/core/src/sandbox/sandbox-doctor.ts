/**
 * `culture doctor`'s sandbox lines: for every sandbox kind the config uses, whether it really
 * runs here (a trivial command run in a real box, so missing user namespaces show up, not just
 * a missing program), with the exact command that fixes it; and for every sandboxed agent,
 * whether its `read_only`/`read_write` paths are accepted.
 */
import { execFile } from "node:child_process";
import { permissionsSchema, type CultureConfig } from "../config/schema.js";
import type { DoctorCheck } from "../backend.js";
import { errorMessage } from "../errors.js";
import { agentSandboxFor } from "./agent-sandbox.js";
import { BWRAP_INSTALL, findBwrap } from "./bwrap-args.js";
import { effectiveSandbox } from "./sandbox-config.js";
import { podmanDoctorChecks } from "./podman-doctor.js";

/** The fix for "bwrap is installed but may not create namespaces". */
export const USERNS_FIX =
  "Allow unprivileged user namespaces: sudo sysctl -w kernel.unprivileged_userns_clone=1 (Debian); " +
  "on Ubuntu 23.10+ (AppArmor): sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0; " +
  "elsewhere: sudo sysctl -w user.max_user_namespaces=15000. In a container, run it with user namespaces allowed (e.g. docker --security-opt seccomp=unconfined).";

/** The doctor checks for the sandboxes `config` uses (none when every agent runs with `sandbox: none`). */
export async function sandboxChecks(config: Pick<CultureConfig, "agents" | "filepath" | "sandbox" | "permissions">, env: NodeJS.ProcessEnv = process.env): Promise<DoctorCheck[]> {
  const out: DoctorCheck[] = [];
  const kinds = new Set(config.agents.map((a) => effectiveSandbox(config, a).kind));
  if (kinds.has("bwrap")) out.push(await bwrapCheck(env));
  // podman: installed, and a real trivial `podman run` (its own error line when it fails).
  if (kinds.has("podman")) for (const c of await podmanDoctorChecks()) out.push({ ...c, name: `sandbox ${c.name}` });
  for (const agent of config.agents) {
    const spec = effectiveSandbox(config, agent);
    if (spec.kind === "none") continue;
    const name = `sandbox of ${agent.nick}`;
    try {
      agentSandboxFor({
        nick: agent.nick,
        config,
        agent,
        backend: {},
        backendOptions: {},
        env: { ...env, CULTURE_NICK: agent.nick },
        permissions: agent.permissions ?? config.permissions ?? permissionsSchema.parse({}),
      });
      const extra = spec.read_only.length + spec.read_write.length;
      out.push({ ok: true, name, detail: `${spec.kind}, network ${spec.network}${extra ? `, ${extra} more path${extra === 1 ? "" : "s"}` : ""}` });
    } catch (err) {
      const [detail, ...rest] = errorMessage(err).split("\n");
      out.push({ ok: false, name, detail: detail ?? "", fix: rest.join(" ") || `fix sandbox: in ${config.filepath ?? "the config"}` });
    }
  }
  return out;
}

/** Runs `true` in a bubblewrap box shaped like an agent's (namespaces, tmpfs, no capabilities). */
export async function bwrapCheck(env: NodeJS.ProcessEnv = process.env): Promise<DoctorCheck> {
  const name = "sandbox bwrap";
  const bwrap = findBwrap(env);
  if (!bwrap) return { ok: false, name, detail: "bwrap is not installed (not on PATH)", fix: BWRAP_INSTALL };
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL", "true"];
  const result = await new Promise<{ code: number | null; stderr: string; error: Error | null }>((resolve) => {
    execFile(bwrap, args, { timeout: 15_000 }, (error, _stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stderr: String(stderr).trim(), error }));
  });
  if (result.code === 0) return { ok: true, name, detail: `${bwrap} runs a box (user, pid, net, ipc, uts namespaces; no capabilities)` };
  const why = result.stderr || (result.error ? errorMessage(result.error) : `exit code ${result.code}`);
  const namespaces = /namespace|uid map|operation not permitted|permission denied/i.test(why);
  return {
    ok: false,
    name,
    detail: `${bwrap} cannot run a box here: ${why}`,
    fix: namespaces ? USERNS_FIX : `run it by hand to see why: ${bwrap} ${args.join(" ")}`,
  };
}
