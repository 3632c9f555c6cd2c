/**
 * `culture doctor` for `sandbox: { kind: podman }`: podman is present, and a real trivial
 * `podman run` works. When it does not, the check shows podman's own error line and what it
 * means. Machines where podman installs but cannot run containers are common (a container or a
 * VM with hybrid cgroups, capped resource limits, no subordinate ids): the message says which
 * case this is and what to do, and that `kind: bwrap` works without any of it.
 */
import type { DoctorCheck } from "../backend.js";
import { execPodman, type PodmanExec } from "./podman-image.js";

/** The trivial container the check runs: the host's root as a read-only rootfs, no network, `/bin/true` (no image to pull). */
export const PODMAN_PROBE_ARGS = ["run", "--rm", "--read-only", "--network", "none", "--rootfs", "/", "/bin/true"];

/** What a failed `podman run` means and how to fix it. */
export interface PodmanDiagnosis {
  /** Podman's own error line. */
  line: string;
  /** What it means, in a sentence. */
  meaning: string;
  /** What to do. */
  fix: string;
}

const USE_BWRAP = "until then use `sandbox: { kind: bwrap }` (needs only bubblewrap: apt-get install -y bubblewrap)";

/** Known failures, most specific first. */
const CAUSES: ReadonlyArray<{ test: RegExp; meaning: (m: RegExpExecArray) => string; fix: string }> = [
  {
    test: /setrlimit [`'"]?(RLIMIT_\w+)[`'"]?: Operation not permitted/,
    meaning: (m) => `the container runtime (crun) may not set ${m[1]} here: this machine (often itself a container or a locked-down VM) caps resource limits`,
    fix: `add "default_ulimits = []" under [containers] in containers.conf (~/.config/containers/containers.conf, or /etc/containers/containers.conf as root) and run culture doctor again; ${USE_BWRAP}`,
  },
  {
    test: /cgroups in hybrid mode not supported/,
    meaning: () => "the machine mounts cgroups in hybrid mode (v1 controllers next to v2), which crun cannot use",
    fix: `run podman on a machine booted with cgroup v2 only (kernel parameter systemd.unified_cgroup_hierarchy=1); ${USE_BWRAP}`,
  },
  {
    test: /runtime "?runc"? not found/,
    meaning: () => "podman is set to use runc, which is not installed",
    fix: `apt-get install -y runc, or set runtime = "crun" under [engine] in containers.conf; ${USE_BWRAP}`,
  },
  {
    test: /cgroup.*(mount|permission denied|operation not permitted)/i,
    meaning: () => "the container runtime cannot set up cgroups here",
    fix: `run podman on a machine with cgroup v2 and systemd (loginctl enable-linger for a service user); ${USE_BWRAP}`,
  },
  {
    test: /newuidmap|newgidmap|subuid|subgid|insufficient UIDs or GIDs|cannot find UID\/GID/i,
    meaning: () => "rootless podman needs subordinate user and group ids for this user",
    fix: `sudo usermod --add-subuids 100000-165535 --add-subgids 100000-165535 $USER && podman system migrate; ${USE_BWRAP}`,
  },
  {
    test: /overlay|fuse-overlayfs/i,
    meaning: () => "podman's storage driver cannot mount its layers here",
    fix: `apt-get install -y fuse-overlayfs (or set driver = "vfs" in storage.conf); ${USE_BWRAP}`,
  },
];

/** The line of podman's output that says what failed: the last `Error:` line, else the last line. */
export function podmanErrorLine(output: string): string {
  const lines = output.split("\n").map((l) => l.trim()).filter(Boolean);
  return [...lines].reverse().find((l) => /^Error:/.test(l)) ?? lines.at(-1) ?? "(podman printed nothing)";
}

/** What a failed `podman run`'s output means. */
export function diagnosePodmanRun(output: string): PodmanDiagnosis {
  const line = podmanErrorLine(output);
  for (const cause of CAUSES) {
    const m = cause.test.exec(line);
    if (m) return { line, meaning: cause.meaning(m), fix: cause.fix };
  }
  return {
    line,
    meaning: "podman cannot run a container on this machine",
    fix: `run \`podman ${PODMAN_PROBE_ARGS.join(" ")}\` and \`podman info\` to see why; ${USE_BWRAP}`,
  };
}

/** The doctor's podman checks: installed, and a trivial `podman run`. */
export async function podmanDoctorChecks(exec: PodmanExec = execPodman): Promise<DoctorCheck[]> {
  let version: string;
  try {
    version = (await exec(["--version"])).stdout.trim();
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException).code === "ENOENT";
    return [
      {
        ok: false,
        name: "podman",
        detail: missing ? "podman is not installed" : `podman --version failed: ${podmanErrorLine(errText(err))}`,
        fix: missing ? `apt-get install -y podman (Debian/Ubuntu; dnf install -y podman on Fedora); ${USE_BWRAP}` : USE_BWRAP,
      },
    ];
  }
  const out: DoctorCheck[] = [{ ok: true, name: "podman", detail: version }];
  try {
    await exec(PODMAN_PROBE_ARGS);
    out.push({ ok: true, name: "podman run", detail: "a trivial container ran (podman run --rm --rootfs / /bin/true)" });
  } catch (err) {
    const d = diagnosePodmanRun(errText(err));
    out.push({ ok: false, name: "podman run", detail: `podman cannot run containers here: ${d.meaning}.\npodman said: ${d.line}`, fix: d.fix });
  }
  return out;
}

function errText(err: unknown): string {
  const e = err as { stderr?: string; stdout?: string; message?: string };
  return [e.stdout, e.stderr].filter(Boolean).join("\n") || e.message || String(err);
}
