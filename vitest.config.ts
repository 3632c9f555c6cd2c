import { readdirSync, existsSync } from "node:fs";
import { defineConfig } from "vitest/config";

// One runner for the monorepo: each package is a project named after its folder.
const packages = readdirSync("packages").filter((d) => existsSync(`packages/${d}/package.json`));

export default defineConfig({
  test: {
    // Integration tests start real IRC servers and processes; 2-core CI machines need headroom.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: packages.map((name) => ({
      // extends: the timeouts above apply to every project.
      extends: true,
      test: { name, root: `packages/${name}`, exclude: ["**/node_modules/**", "**/dist/**", "**/mut-*/**"] },
    })),
  },
});
