/**
 * fdatasync in the background, for the append-only journals (the prompt journal, the usage
 * journal): each record is written with one write(2) before the caller goes on, so a kill -9
 * loses nothing; the sync to the disk runs off the event loop, at most one at a time, and one
 * more after it covers every record written while it ran. A power cut can lose the records of
 * the last moment (docs/performance.md).
 */
import { fdatasync } from "node:fs";

/** What {@link BackgroundSync} needs from its journal. */
export interface BackgroundSyncOptions {
  /** The journal's descriptor now; -1 when it is closed. */
  fd(): number;
  /** A sync of the journal's current file failed. */
  failed(err: Error): void;
}

/** One journal's background syncs. */
export class BackgroundSync {
  private syncing = false;
  /** Records were written after the sync in flight began. */
  private dirty = false;
  /** Counts the files the journal went through: a sync that outlived its file ignores its outcome. */
  private generation = 0;

  constructor(private readonly o: BackgroundSyncOptions) {}

  /** Records were written: sync them soon. */
  request(): void {
    if (this.syncing) {
      this.dirty = true;
      return;
    }
    const fd = this.o.fd();
    if (fd < 0) return;
    this.syncing = true;
    this.dirty = false;
    const generation = this.generation;
    fdatasync(fd, (err) => {
      this.syncing = false;
      if (err && generation === this.generation) this.o.failed(err);
      if (this.dirty) this.request();
    });
  }

  /**
   * The journal closed its file, or replaced it (compaction writes and syncs the new one
   * itself): a sync still running on the old descriptor no longer counts, even if the number
   * is reused by the next open.
   */
  fileChanged(): void {
    this.generation++;
  }
}
