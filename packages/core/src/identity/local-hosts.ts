/**
 * The host names that mean this machine, apart from the credentials code (which loads the
 * server's account store) so that `@culture/core/config` can offer them cheaply.
 */

/** Host names that mean this machine. */
export const LOCAL_HOSTS: ReadonlySet<string> = new Set(["localhost", "127.0.0.1", "::1", "[::1]"]);
