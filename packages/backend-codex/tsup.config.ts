import { defineConfig } from "tsup";

export default defineConfig({
  entry: { index: "src/index.ts" },
  format: ["esm"],
  dts: true,
  sourcemap: true,
  // No clean: parallel builds and running tests share dist/; stale files are harmless.
  clean: false,
  target: "node20",
  external: [/^@culture\//, "zod"],
});
