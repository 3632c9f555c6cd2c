/**
 * The esbuild plugin for the bundle that carries the ACP SDK (backend-acp, which the daemon loads):
 * the SDK's generated zod schemas (`dist/.../zod.gen.js`, ~180 `export const zX = z....;`) are
 * built when first used instead of at import, and the ones a bundle never reaches are dropped.
 *
 * Each top-level schema becomes `/* @__PURE__ *\/ z.lazy(() => <the same expression>)`: zod
 * builds the inner schema on its first parse (and caches it), and validates exactly as before
 * (a lazy schema passes on its inner schema's optionality, so object keys stay optional or
 * required). The SDK builds every request's schema into its method table at import, and zod
 * builds a schema eagerly: that was most of an ACP process's start (issue 30: ~35 ms of CPU and
 * ~3 MiB of heap in the demo agent, of which 10 run in a fleet). The pure mark lets esbuild drop
 * the schemas nothing references (the responses', for instance).
 *
 * The plugin checks the file's shape and fails the build, naming the file, when the SDK's
 * generator writes something else: a schema it did not wrap would still work, but silently.
 */
import { readFile } from "node:fs/promises";

/** Wraps each top-level `export const zX = ...;` of a zod.gen.js in `z.lazy`. */
export function lazySchemaSource(source, file) {
  if (!/^import \* as z from "zod(\/v4)?";$/m.test(source)) throw new Error(`${file}: no \`import * as z from "zod/v4"\`; the ACP SDK's schemas changed shape`);
  const lines = source.split("\n");
  let open = -1; // the line where the schema being wrapped starts, or -1
  let wrapped = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (open < 0) {
      const m = /^export const (z\w+) = (.*)$/.exec(line);
      if (!m) {
        if (/^(export|const|let|var|function|class)\b/.test(line)) throw new Error(`${file}:${i + 1}: unexpected top-level statement: ${line.slice(0, 80)}`);
        continue;
      }
      lines[i] = `export const ${m[1]} = /* @__PURE__ */ z.lazy(() => ${m[2]}`;
      open = i;
    }
    // A statement ends on the first line at column 0 (or its own first line) that ends with ";".
    if ((i === open || !/^\s/.test(lines[i])) && lines[i].endsWith(";")) {
      lines[i] = `${lines[i].slice(0, -1)});`;
      open = -1;
      wrapped++;
    }
  }
  if (open >= 0) throw new Error(`${file}:${open + 1}: a schema that never ends`);
  const expected = source.match(/^export const z\w+ = /gm)?.length ?? 0;
  if (wrapped === 0 || wrapped !== expected) throw new Error(`${file}: wrapped ${wrapped} of ${expected} schemas`);
  return lines.join("\n");
}

/** The plugin: applies lazySchemaSource to the SDK's zod.gen.js files as esbuild loads them. */
export const lazyAcpSchemas = {
  name: "lazy-acp-schemas",
  setup(build) {
    build.onLoad({ filter: /[\\/]@agentclientprotocol[\\/]sdk[\\/]dist[\\/].*zod\.gen\.js$/ }, async (args) => {
      try {
        return { contents: lazySchemaSource(await readFile(args.path, "utf8"), args.path), loader: "js" };
      } catch (err) {
        return { errors: [{ text: `lazy-acp-schemas: ${err.message}` }] };
      }
    });
  },
};
