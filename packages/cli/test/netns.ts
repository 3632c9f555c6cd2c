/**
 * A second "machine" for cross-host tests: a Linux network namespace with a veth pair to the
 * default namespace and private addresses (10.233.x.0/30) that exist inside this sandbox only.
 * Processes started with {@link NetnsHost.wrap} see only that namespace's network (its own
 * loopback and the veth): they reach the default namespace's servers only over the veth.
 * Needs root and iproute2 (scripts/install-os-tools.sh); when `ip netns` cannot work the
 * creation throws with the exact error — a cross-host test never falls back to one namespace.
 */
import { execFileSync } from "node:child_process";

/** One network namespace and its veth pair. */
export interface NetnsHost {
  /** The namespace's name (`ip netns list`). */
  name: string;
  /** The default namespace's end of the veth (reachable from inside the namespace). */
  outerAddress: string;
  /** The namespace's end of the veth (reachable from the default namespace). */
  innerAddress: string;
  /** `argv` run inside the namespace: `ip netns exec <name> ...argv`. */
  wrap(argv: string[]): [string, string[]];
  /** Kills every process still in the namespace and deletes it (the veth pair goes with it). Safe to call twice. */
  remove(): void;
}

const live = new Set<NetnsHost>();
let exitHook = false;

/** Creates the namespace (`cf<tag>`), the veth pair and its addresses; brings the links up. */
export function createNetns(tag: string): NetnsHost {
  const name = `cf${tag}`.slice(0, 12);
  const octet = 1 + (process.pid % 250);
  const outerAddress = `10.233.${octet}.1`;
  const innerAddress = `10.233.${octet}.2`;
  const outerIf = `${name}o`.slice(0, 15);
  const innerIf = `${name}i`.slice(0, 15);
  const host: NetnsHost = {
    name,
    outerAddress,
    innerAddress,
    wrap: (argv) => ["ip", ["netns", "exec", name, ...argv]],
    remove() {
      live.delete(host);
      for (const pid of pidsIn(name)) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          /* gone */
        }
      }
      tryIp(["netns", "del", name]);
      tryIp(["link", "del", outerIf]);
    },
  };
  // A namespace left by a killed run of this test (same pid, unlikely) is replaced.
  tryIp(["netns", "del", name]);
  try {
    ip(["netns", "add", name]);
  } catch (err) {
    throw new Error(
      `This test needs Linux network namespaces (a second "host"): \`ip netns add ${name}\` failed: ${(err as Error).message.trim()}\n` +
        "Run it as root with iproute2 installed (scripts/install-os-tools.sh installs it).",
    );
  }
  live.add(host);
  if (!exitHook) {
    exitHook = true;
    // A test that dies without its afterAll still leaves no namespace behind.
    process.once("exit", () => {
      for (const h of [...live]) h.remove();
    });
  }
  try {
    ip(["link", "add", outerIf, "type", "veth", "peer", "name", innerIf]);
    ip(["link", "set", innerIf, "netns", name]);
    ip(["addr", "add", `${outerAddress}/30`, "dev", outerIf]);
    ip(["link", "set", outerIf, "up"]);
    ip(["netns", "exec", name, "ip", "addr", "add", `${innerAddress}/30`, "dev", innerIf]);
    ip(["netns", "exec", name, "ip", "link", "set", innerIf, "up"]);
    ip(["netns", "exec", name, "ip", "link", "set", "lo", "up"]);
  } catch (err) {
    host.remove();
    throw err;
  }
  return host;
}

/** The pids of the processes inside namespace `name`. */
export function pidsIn(name: string): number[] {
  try {
    return execFileSync("ip", ["netns", "pids", name], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

function ip(args: string[]): void {
  try {
    execFileSync("ip", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`ip ${args.join(" ")}: ${e.stderr?.trim() || e.message}`);
  }
}

function tryIp(args: string[]): void {
  try {
    execFileSync("ip", args, { stdio: "ignore" });
  } catch {
    /* not there */
  }
}
