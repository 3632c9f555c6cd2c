import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // One runner for the monorepo: each package is a project named after its folder.
    projects: ["packages/*"],
    // Integration tests start real IRC servers and processes; 2-core CI machines need headroom.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
