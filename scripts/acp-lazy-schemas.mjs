/**
 * The esbuild plugin that makes the bundled ACP SDK build its zod schemas on first use
 * (issue 30). The SDK's generated `zod.gen.js` builds every protocol schema when the module
 * loads: ~1,350 zod schema objects, of which an idle daemon uses none (it parses only what
 * the agent sends it: session updates during a turn, permission and file requests), and
 * which it holds for as long as it runs (~1.1 MiB of its V8 heap, ~20 ms of CPU at start).
 *
 * Each top-level `export const zX = <schema>;` becomes `export const zX = z.lazy(() => <schema>);`:
 * a small placeholder whose schema is built the first time something parses with it, then
 * kept. A lazy schema parses exactly as the schema it wraps (zod's `$ZodLazy` runs the inner
 * schema and forwards `optin`/`optout`, so object keys stay optional or required as before);
 * the SDK only calls `.parse`, `.and`, `.optional` and the like on them, never introspects them.
 * The build fails, rather than bundle something else, if the file stops looking as expected.
 */
import { readFile } from "node:fs/promises";
import ts from "typescript";

export const acpLazySchemas = {
  name: "acp-lazy-schemas",
  setup(build) {
    build.onLoad({ filter: /[\\/]@agentclientprotocol[\\/]sdk[\\/]dist[\\/].*[\\/]zod\.gen\.js$/ }, async (args) => {
      const source = await readFile(args.path, "utf8");
      return { contents: lazySchemas(source, args.path), loader: "js" };
    });
  },
};

/** `source` (a generated zod.gen.js) with each exported schema wrapped in `z.lazy`. */
export function lazySchemas(source, path = "zod.gen.js") {
  const file = ts.createSourceFile(path, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const fail = (why) => {
    throw new Error(`scripts/acp-lazy-schemas.mjs: ${path} ${why}; update the plugin for this SDK version`);
  };
  if (!/^import \* as z from "zod(\/v4)?";$/m.test(source)) fail('no longer imports zod as `import * as z from "zod/v4"`');
  const edits = [];
  for (const statement of file.statements) {
    if (ts.isImportDeclaration(statement)) continue;
    const exported = statement.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (!ts.isVariableStatement(statement) || !exported || statement.declarationList.declarations.length !== 1) {
      fail(`has a top-level statement other than \`export const zX = ...\` (${statement.getText(file).slice(0, 60)})`);
    }
    const [decl] = statement.declarationList.declarations;
    if (!ts.isIdentifier(decl.name) || !/^z[A-Z]/.test(decl.name.text) || !decl.initializer) fail(`exports something other than a zod schema (${decl.name.getText(file)})`);
    edits.push([decl.initializer.getStart(file), decl.initializer.getEnd()]);
  }
  if (edits.length === 0) fail("exports no schemas");
  let out = "";
  let at = 0;
  for (const [start, end] of edits) {
    out += source.slice(at, start) + "/* @__PURE__ */ z.lazy(() => " + source.slice(start, end) + ")";
    at = end;
  }
  return out + source.slice(at);
}
