/**
 * execa, as @culture/core bundles it (`@culture/core/execa`). The built-in backends alias their
 * `execa` imports here at build time (scripts/from-core.mjs), so a daemon process loads one
 * bundled copy instead of the execa package's ~135 ES modules (with its dependencies), which cost
 * each daemon ~70 ms of CPU and ~6 MiB of RSS to load (issue 30). The API is execa's own.
 */
export * from "execa";
