import { defineConfig } from "tsup";

// main.ts is a tiny dispatcher: `culture channel ...` (run by agents on every IRC action)
// takes a fast path that never loads commander or the @culture/core barrel.
export default defineConfig({
  entry: { main: "src/main.ts" },
  format: ["esm"],
  dts: false,
  sourcemap: true,
  // No clean: parallel builds and running tests share dist/; stale files are harmless.
  clean: false,
  target: "node20",
  splitting: true,
  external: [/^@culture\//],
  banner: { js: "#!/usr/bin/env node" },
});
