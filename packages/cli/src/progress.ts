/**
 * Progress for long operations: a spinner line on a terminal, nothing decorative otherwise.
 * Several concurrent operations share one status line listing what is still pending.
 */
const pending = new Set<string>();
let timer: NodeJS.Timeout | null = null;
let frame = 0;
const FRAMES = ["|", "/", "-", "\\"];

function render(): void {
  const names = [...pending];
  const full = names.length ? `${FRAMES[frame++ % FRAMES.length]} ${names.join(", ")}...` : "";
  // One line that never wraps: \r can only redraw the current line.
  const width = Math.max(10, (process.stderr.columns ?? 80) - 1);
  const line = full.length > width ? `${full.slice(0, width - 3)}...` : full;
  process.stderr.write(`\r\x1b[2K${line}`);
}

/** Runs `fn` while showing `label` on a terminal. */
export async function progress<T>(label: string, fn: () => Promise<T>): Promise<T> {
  if (!process.stderr.isTTY) return fn();
  pending.add(label);
  timer ??= setInterval(render, 100);
  render();
  try {
    return await fn();
  } finally {
    pending.delete(label);
    if (pending.size === 0 && timer) {
      clearInterval(timer);
      timer = null;
      process.stderr.write("\r\x1b[2K");
    } else render();
  }
}
