#!/usr/bin/env node
/**
 * Writes core's ES module entries as facades (packages/core/dist/facade/*.js), after core's
 * build: in a daemon started from the daemon image (scripts/daemon-image.mjs), a backend's
 * `import ... from "@culture/core"` must get the image's core, or the daemon would hold and
 * start two (twice the CPU and memory, and two sets of module state). Each facade takes the
 * image's module when `globalThis[Symbol.for("culture.daemon-image")]` is set, else the built
 * file itself, and exports the same names. core's package.json names the facades.
 *
 * Run by core's build, after tsup:  node ../../scripts/core-facades.mjs
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { IMAGE_ENTRIES } from "./daemon-image-entries.mjs";

const core = fileURLToPath(new URL("../packages/core/", import.meta.url));
for (const [specifier, file] of Object.entries(IMAGE_ENTRIES)) {
  const real = join(core, file);
  const names = Object.keys(await import(pathToFileURL(real).href));
  const facade = join(core, "dist/facade", file.slice("dist/".length));
  const from = relative(dirname(facade), real).split("\\").join("/");
  const bindings = names.filter((n) => n !== "default");
  const lines = [
    `// ${specifier}: the daemon image's module in a daemon started from it, else ${file} (scripts/core-facades.mjs).`,
    `const image = globalThis[Symbol.for("culture.daemon-image")];`,
    `const m = image ? await image.core(${JSON.stringify(specifier)}) : await import(${JSON.stringify(from.startsWith(".") ? from : `./${from}`)});`,
    // Through locals: some export names (zod's `enum`, `catch`, ...) are reserved words.
    ...bindings.map((n, i) => `const _${i} = m[${JSON.stringify(n)}];`),
    bindings.length ? `export { ${bindings.map((n, i) => `_${i} as ${n}`).join(", ")} };` : "",
    names.includes("default") ? "export default m.default;" : "",
  ];
  mkdirSync(dirname(facade), { recursive: true });
  writeFileSync(facade, `${lines.filter(Boolean).join("\n")}\n`);
}
console.log(`core facades: ${Object.keys(IMAGE_ENTRIES).length} entries in dist/facade/`);
