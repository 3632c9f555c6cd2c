import { readdirSync, existsSync } from "node:fs";
import { defineConfig } from "vitest/config";

// One runner for the monorepo: each package is a project named after its folder.
const packages = readdirSync("packages").filter((d) => existsSync(`packages/${d}/package.json`));

/** The suites that drive a real agent CLI: each keeps a core busy while the CLI starts. */
const REAL = "test/**/*.real.test.ts";

const exclude = ["**/node_modules/**", "**/dist/**", "**/mut-*/**"];

/**
 * Two groups, one after the other. First every package's own tests, two files at a time: most
 * of them wait on IRC servers, daemons and timers rather than on the CPU, so a second worker
 * nearly halves the wall time on a 2-core CI machine. Then the real agent CLIs' suites
 * (`<package>:real`, e.g. `--project backend-acp:real`), one file at a time as before: they
 * are CPU-bound while a CLI starts, and two at once would only slow each other.
 */
export default defineConfig({
  test: {
    // Integration tests start real IRC servers and processes; 2-core CI machines need headroom.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // The packages' builds (a backend found by discovery, core under it) load as Node loads them
    // for users, not through vite's transform: their bundled chunks are plain ESM already.
    server: { deps: { external: [/\/packages\/[^/]+\/dist\//] } },
    projects: packages.flatMap((name) => {
      const root = `packages/${name}`;
      const own = {
        // extends: the timeouts above apply to every project.
        extends: true,
        test: { name, root, exclude: [...exclude, REAL], maxWorkers: 2, sequence: { groupOrder: 0 } },
      };
      const hasReal = existsSync(`${root}/test`) && readdirSync(`${root}/test`).some((f) => f.endsWith(".real.test.ts"));
      if (!hasReal) return [own];
      const real = {
        extends: true,
        test: { name: `${name}:real`, root, include: [REAL], exclude, maxWorkers: 1, sequence: { groupOrder: 1 } },
      };
      return [own, real];
    }),
  },
});
