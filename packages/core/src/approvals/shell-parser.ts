/**
 * The bash parser approvals use: tree-sitter's bash grammar (tree-sitter-bash) run by
 * web-tree-sitter, both WebAssembly, so nothing is compiled at install time. Chosen over
 * sh-syntax (mvdan/sh in wasm: its JSON AST drops every interface-typed node, so a command's
 * kind and its words' parts cannot be read) and mvdan-sh (the GopherJS build: deprecated, last
 * published 2022). tree-sitter-bash is kept by the tree-sitter project and is what editors use
 * to read shell commands.
 *
 * Loading WebAssembly is asynchronous, parsing is not: {@link initShellParser} loads it once
 * (the approval desk awaits it before its first decision), and {@link parseShell} is then
 * synchronous, so the permission policy stays a synchronous function. Before the parser is
 * loaded {@link parseShell} returns null, which every caller treats as "not understood" (asked
 * or, under deny patterns, refused) — never as allowed.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type { Node, Parser, Tree } from "web-tree-sitter";

let parser: Parser | null = null;
let loading: Promise<void> | null = null;

/** Loads the bash parser (once; later calls return the same promise). */
export function initShellParser(): Promise<void> {
  loading ??= (async () => {
    // Imported here, not at the top: a daemon that never sees a shell command never loads the
    // parser's JavaScript either (a chunk of its own in dist/; issue 30, idle memory).
    const { Language, Parser } = await import("web-tree-sitter");
    await Parser.init({ locateFile: () => wasmFile("tree-sitter.wasm", "web-tree-sitter/tree-sitter.wasm") });
    const bash = await Language.load(wasmFile("tree-sitter-bash.wasm", "tree-sitter-bash/tree-sitter-bash.wasm"));
    const p = new Parser();
    p.setLanguage(bash);
    parser = p;
  })();
  return loading;
}

/**
 * A .wasm file: next to the built chunk (dist/, where the build copies them), else from the
 * package in node_modules (running from source, in tests).
 */
function wasmFile(name: string, specifier: string): string {
  for (const dir of ["./", "../"]) {
    const file = fileURLToPath(new URL(dir + name, import.meta.url));
    if (existsSync(file)) return file;
  }
  return createRequire(import.meta.url).resolve(specifier);
}

/** True once {@link initShellParser} has finished. */
export function shellParserReady(): boolean {
  return parser !== null;
}

/** Parses `script` as bash; null when the parser is not loaded yet. The caller must `delete()` the tree. */
export function parseShell(script: string): Tree | null {
  return parser?.parse(script) ?? null;
}

export type { Node as ShellNode, Tree as ShellTree };
