import { defineConfig } from "tsup";

export default defineConfig({
  entry: { index: "src/index.ts" },
  format: ["esm"],
  dts: true,
  sourcemap: true,
  clean: true,
  target: "node20",
  // Peer dependencies: the host's copy is used at run time, never a bundled one.
  external: [/^@culture\//, "zod"],
});
