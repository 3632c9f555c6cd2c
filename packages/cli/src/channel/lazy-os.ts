/**
 * What `culture channel`'s bundle (dist/channel.cjs) gets for `node:os` (an alias in
 * tsup.config.ts): core's paths.ts uses only `homedir()`, and only when neither
 * XDG_RUNTIME_DIR nor CULTURE_HOME is set, so os is loaded then instead of on every call.
 * Any other import from `node:os` in the bundle fails the build.
 */
import type * as os from "node:os";

/** `os.homedir()`, loading os on the first call (`require` is CommonJS's: the bundle is CommonJS). */
export function homedir(): string {
  return (require("os") as typeof os).homedir();
}
