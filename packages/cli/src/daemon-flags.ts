import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

/**
 * The node flags of an agent daemon, one definition for every way it is started: `culture start`
 * (start-fleet.ts), the systemd unit `culture service` writes, and the benches that measure a
 * daemon as users run it (bench/daemon.mjs, bench/daemon-idle.mjs import dist/daemon-flags.js).
 *
 * A daemon spends its life idle or handling short lines; what it keeps is what its start-up
 * leaves behind (docs/performance.md, issue 30):
 * - `--max-semi-space-size=2`: a small young generation. A daemon's allocations are short-lived
 *   lines and messages; V8's default 16 MiB semi-spaces let a burst (a 20,000-line flood) grow
 *   the process by ~40 MiB that it keeps, 2 MiB halves that.
 * - `--interrupt-budget=1000000` while it starts: V8 optimizes a function with TurboFan only after
 *   ~15 times the bytecode it runs by default. Start-up code (module bodies, schema building,
 *   config parsing) runs a few times and is never worth optimizing, but by default TurboFan
 *   compiled some of it on a background thread: CPU in a fleet start where every core is busy,
 *   and 3-4 MiB of RSS an idle daemon kept (its code and the compiler's own pages). Once the
 *   daemon is up, {@link endStartupTiering} gives V8 its usual budget back, so code that turns
 *   hot later (an IRC flood's line handling) is optimized as soon as by default.
 * A flag the user set (in this CLI's own flags or NODE_OPTIONS) wins. The values are defined in
 * bin/daemon-image.cjs (DAEMON_V8_FLAGS), whose startupFlags() also keeps them from costing the
 * daemon Node's own code cache while it starts.
 */
export function daemonNodeFlags(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ""): string[] {
  const flags = [...execArgv];
  // V8 reads `--a_b` as `--a-b`; `--interrupt-budget-for-feedback-allocation` is another flag.
  const userSet = new Set([...execArgv, ...nodeOptions.split(/\s+/)].map((f) => f.split("=")[0]!.replaceAll("_", "-")));
  for (const [name, value] of loader().DAEMON_V8_FLAGS) if (!userSet.has(name)) flags.push(`${name}=${value}`);
  return flags;
}

/**
 * glibc malloc's setting for a daemon: a fixed mmap threshold (its default, 128 KiB). glibc
 * otherwise raises the threshold, and the trim threshold to twice that, to the size of the
 * largest mmap'd block freed so far; a daemon frees one of ~1.3 MB (its code cache, read once at
 * start, bin/daemon-image.cjs), after which what an IRC flood allocated and freed stayed in the
 * process: the daemon settled at 70 MiB after bench/daemon.mjs's flood instead of 62.5 (issue 30).
 * Fixed, a freed large block goes back to the system at once.
 */
export const DAEMON_GLIBC_TUNABLES = "glibc.malloc.mmap_threshold=131072";

/**
 * The environment variables a daemon's process starts with besides its parent's: GLIBC_TUNABLES
 * (see {@link DAEMON_GLIBC_TUNABLES}), unless the user set their own. glibc reads it only when the
 * process starts, so `culture start` and the systemd unit set it; the daemon removes it from the
 * environment its agents inherit ({@link forgetDaemonEnv}). Other C libraries ignore it.
 */
export function daemonEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return env.GLIBC_TUNABLES === undefined ? { GLIBC_TUNABLES: DAEMON_GLIBC_TUNABLES } : {};
}

/** Removes what {@link daemonEnv} added from `env`, so the agent processes a daemon starts do not inherit it. */
export function forgetDaemonEnv(env: NodeJS.ProcessEnv = process.env): void {
  if (env.GLIBC_TUNABLES === DAEMON_GLIBC_TUNABLES) delete env.GLIBC_TUNABLES;
}

/**
 * Called once the daemon is up: V8's usual optimization budget again, if the start-up one is
 * ours (a budget the user chose stays), and V8's defaults for what the daemon set only while it
 * started (bin/daemon-image.cjs endStartupTiering). From then on hot code tiers up as it does by
 * default.
 */
export function endStartupTiering(execArgv: readonly string[] = process.execArgv): void {
  loader().endStartupTiering(execArgv);
}

/** What daemon-flags.ts takes from the daemon image's loader (bin/daemon-image.cjs). */
interface DaemonImageLoader {
  useDaemonImage(env: NodeJS.ProcessEnv): boolean;
  /** The daemon's own V8 flags, by name: see {@link daemonNodeFlags}. */
  DAEMON_V8_FLAGS: ReadonlyArray<readonly [name: string, value: number]>;
  endStartupTiering(execArgv: readonly string[]): void;
}

/**
 * bin/daemon-image.cjs, the script a daemon's process runs: it holds the daemon's V8 flags, as
 * it acts on them before any of culture's code loads (its startupFlags()).
 */
function loader(): DaemonImageLoader {
  return createRequire(import.meta.url)(fileURLToPath(new URL("../bin/daemon-image.cjs", import.meta.url))) as DaemonImageLoader;
}

/**
 * The script `culture start` runs a detached daemon with: the daemon image's loader
 * (bin/daemon-image.cjs) when this install has the image and CULTURE_NO_DAEMON_IMAGE is not set,
 * so the daemon goes straight to the image without loading this ES module program first (~4 ms
 * of CPU at each start, bench/daemon-start.mjs); else `main`, the entry script this CLI runs
 * from, whose foreground start runs culture's ES modules. The systemd unit keeps `main`: a
 * unit outlives the install it was written for, and `main` decides again at each start.
 */
export function daemonScript(main: string, env: NodeJS.ProcessEnv = process.env): string {
  return loader().useDaemonImage(env) ? fileURLToPath(new URL("../bin/daemon-image.cjs", import.meta.url)) : main;
}
