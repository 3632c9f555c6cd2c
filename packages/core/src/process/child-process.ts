/** Small helpers every backend needs around the agent's child process. */

/** An environment without undefined values, as `child_process`/execa want it. */
export function definedEnv(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
  return out;
}

/** Resolves true when `promise` settles within `ms`, false otherwise (the timer is always cleared). */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(
      () => true,
      () => true,
    ), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
