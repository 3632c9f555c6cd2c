// listBackends over a fake culture install, a project and a global prefix, each a real folder.
import { mkdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { listBackends } from "../src/discovery/list-backends.js";
import { backendModule, linkZod, removeTempDirs, tempDir, writeFiles, writePackage } from "./fixtures/temp-packages.js";

afterAll(removeTempDirs);

describe("listBackends", () => {
  it("lists built-ins, the project's backends (by name or keyword) and global ones, with errors for broken ones", async () => {
    const install = join(tempDir("culture-install-"), "node_modules");
    linkZod(install);
    const core = writePackage(install, "@culture/core", { "dist/index.js": "export {};\n" });
    writePackage(install, "@culture/backend-zzz", { "index.js": backendModule("zzz", "list-builtin") }, { version: "0.1.0" });
    writePackage(install, "@culture/server", { "index.js": "export {};\n" });

    const dir = tempDir("culture-list-");
    const modules = join(dir, "node_modules");
    linkZod(modules);
    writePackage(modules, "culture-backend-aaa", { "index.js": backendModule("aaa", "list-aaa") }, { version: "1.2.3" });
    writePackage(modules, "@acme/culture-backend-bbb", { "index.js": backendModule("bbb", "list-bbb") });
    writePackage(modules, "odd-name", { "index.js": backendModule("odd", "list-odd") }, { keywords: ["culture-backend"] });
    writePackage(modules, "culture-backend-broken", { "index.js": `throw new Error("broken on purpose");\n` });
    writePackage(modules, "culture-backend-future", {
      "index.js": `export default { name: "future", apiVersion: 9, createRunner() {}, configSchema: { safeParse() {} } };\n`,
    });
    writePackage(modules, "culture-backend-zzz", { "index.js": backendModule("zzz", "list-zzz-third-party") });
    writePackage(modules, "left-pad", { "index.js": "export default 1;\n" });

    const global = join(tempDir("culture-global-"), "node_modules");
    mkdirSync(global, { recursive: true });
    linkZod(global);
    writePackage(global, "culture-backend-ggg", { "index.js": backendModule("ggg", "list-global") });

    const list = await listBackends(dir, { builtinFrom: join(core, "dist/index.js"), globalModules: global });
    const byPackage = Object.fromEntries(list.map((l) => [l.package, l]));
    expect(list.map((l) => l.package)).toEqual([
      "@culture/backend-zzz",
      "@acme/culture-backend-bbb",
      "culture-backend-aaa",
      "culture-backend-broken",
      "culture-backend-future",
      "culture-backend-zzz",
      "odd-name",
      "culture-backend-ggg",
    ]);
    expect(byPackage["@culture/backend-zzz"]).toMatchObject({ name: "zzz", agent: "zzz", source: "builtin", version: "0.1.0", apiVersion: 1, error: null });
    expect(byPackage["culture-backend-aaa"]).toMatchObject({
      name: "aaa",
      agent: "aaa",
      source: "project",
      version: "1.2.3",
      apiVersion: 1,
      error: null,
      path: join(modules, "culture-backend-aaa"),
    });
    expect(byPackage["@acme/culture-backend-bbb"]).toMatchObject({ name: "bbb", agent: "@acme/bbb", error: null });
    expect(byPackage["odd-name"]).toMatchObject({ name: "odd", agent: `./node_modules/odd-name`, error: null });
    // `zzz` loads the built-in, so the third-party one is named in full.
    expect(byPackage["culture-backend-zzz"]).toMatchObject({ agent: "culture-backend-zzz", error: null });
    expect(byPackage["culture-backend-ggg"]).toMatchObject({ source: "global", error: null });
    expect(byPackage["culture-backend-broken"]?.error).toContain("broken on purpose");
    expect(byPackage["culture-backend-broken"]?.apiVersion).toBeNull();
    expect(byPackage["culture-backend-future"]).toMatchObject({ apiVersion: 9 });
    expect(byPackage["culture-backend-future"]?.error).toContain("API version 9");
  });

  it("lists a package reachable from two places once", async () => {
    // A project that installed culture locally: its node_modules is also culture's.
    const dir = tempDir("culture-list-");
    const modules = join(dir, "node_modules");
    linkZod(modules);
    const core = writePackage(modules, "@culture/core", { "dist/index.js": "export {};\n" });
    writePackage(modules, "@culture/backend-shared", { "index.js": backendModule("shared", "list-shared") });
    writeFiles(dir, { "agents.yaml": "agents: []\n" });
    const list = await listBackends(dir, { builtinFrom: join(core, "dist/index.js"), globalModules: null });
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ package: "@culture/backend-shared", source: "builtin", path: realpathSync(join(modules, "@culture/backend-shared")) });
  });
});
