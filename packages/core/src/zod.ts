/**
 * zod, as @culture/core bundles it (`@culture/core/zod`). The built-in backends alias their
 * `zod` imports here at build time, so a daemon process loads one bundled copy instead of the
 * zod package's ~100 ES modules (13 MiB of RSS, see bench/daemon-idle.mjs). The API is zod's own.
 */
export * from "zod";
export { z, z as default } from "zod";
