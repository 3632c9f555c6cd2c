/**
 * Incoming data handed to irc-framework in small slices, one per turn of the event loop.
 *
 * A flood (a busy channel, a history replay) arrives faster than lines are handled, and libuv
 * reads up to 32 chunks of 64 KiB per poll: irc-framework would parse them all in one go and
 * stall the event loop (IPC answers, timers) for hundreds of milliseconds. So the socket's
 * `data` listeners (irc-framework's line parser) are taken off and fed from a backlog instead,
 * at most {@link READ_SLICE_BYTES} per turn, and the socket is paused while a backlog waits.
 * irc-framework keeps partial lines across slices, so where a slice is cut does not matter.
 */

/** The most bytes handed to the line parser per turn of the event loop (about 100 lines). */
export const READ_SLICE_BYTES = 8 * 1024;

/** The socket calls {@link sliceReads} needs: a readable stream with its `data` listeners. */
export type SliceableSocket = NodeJS.ReadableStream & {
  destroyed?: boolean;
  listeners(e: "data"): Array<(chunk: Buffer) => void>;
};

/**
 * Moves `socket`'s current `data` listeners behind a backlog that feeds them at most
 * `sliceBytes` per turn of the event loop. Call it once per socket, after its reader is
 * attached. Whatever is still in the backlog is fed before the socket's other `close`
 * listeners run, so no line is lost on a close.
 */
export function sliceReads(socket: SliceableSocket, sliceBytes = READ_SLICE_BYTES): void {
  const handlers = socket.listeners("data");
  socket.removeAllListeners("data");
  const backlog: Buffer[] = [];
  let scheduled = false;
  const feed = (slice: Buffer) => {
    for (const handler of handlers) handler.call(socket, slice);
  };
  const step = () => {
    scheduled = false;
    const chunk = backlog.shift();
    if (!chunk) return;
    if (chunk.length > sliceBytes) backlog.unshift(chunk.subarray(sliceBytes));
    feed(chunk.subarray(0, sliceBytes));
    if (backlog.length > 0) schedule();
    else if (socket.isPaused() && !socket.destroyed) socket.resume();
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(step);
  };
  socket.on("data", (chunk: Buffer) => {
    backlog.push(chunk);
    if (backlog.length > 2) socket.pause();
    schedule();
  });
  // Whatever is still waiting is handled before irc-framework sees the close.
  (socket as unknown as NodeJS.EventEmitter).prependListener("close", () => {
    for (const chunk of backlog.splice(0)) feed(chunk);
  });
}
