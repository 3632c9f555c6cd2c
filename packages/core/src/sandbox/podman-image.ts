/**
 * The image of a `sandbox: { kind: podman }` agent (docs/sandbox.md, "podman"). With `image:`
 * the owner names it; with `containerfile:` culture builds it and names it after what it is
 * built from: a hash of the Containerfile and every file of the build context, so an edit to
 * either makes a new image, an unchanged one is reused without calling `podman build`, and the
 * agent's older images (same repository, other tags) are removed after a build.
 */
import { createHash } from "node:crypto";
import { readFileSync, readdirSync, readlinkSync, lstatSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { execFile } from "node:child_process";

/** Runs `podman` with arguments; resolves stdout, rejects with stderr in the error (tests inject a fake). */
export type PodmanExec = (args: string[]) => Promise<{ stdout: string; stderr: string }>;

/** The real `podman`. */
export const execPodman: PodmanExec = (args) =>
  new Promise((resolvePromise, reject) => {
    execFile("podman", args, { maxBuffer: 16 * 1024 * 1024, timeout: 30 * 60_000 }, (err, stdout, stderr) => {
      if (err) reject(Object.assign(err, { stdout, stderr }));
      else resolvePromise({ stdout, stderr });
    });
  });

/** Where an agent's image comes from. */
export interface PodmanImageSource {
  /** A ready image (`docker.io/library/node:20`); used as it is. */
  image?: string;
  /** A Containerfile to build (absolute). */
  containerfile?: string;
  /** The build context (absolute); the Containerfile's folder when left out. */
  context?: string;
}

/** Folders never hashed nor sent as context content that matters for the name (version control). */
const SKIPPED = new Set([".git", ".hg", ".svn"]);

/** The repository an agent's built images live in: `localhost/culture-sandbox-<nick>` (lower-case, safe characters). */
export function podmanRepository(agent: string): string {
  const safe = agent.toLowerCase().replace(/[^a-z0-9._-]+/g, "-").replace(/^[-.]+/, "") || "agent";
  return `localhost/culture-sandbox-${safe}`;
}

/**
 * The content hash of a Containerfile and its context: every regular file's relative path and
 * bytes, every symlink's target, in sorted order, plus the Containerfile's own path relative to
 * the context (building another file of the same folder is another image). 16 hex digits.
 */
export function containerfileHash(containerfile: string, context = dirname(containerfile)): string {
  const hash = createHash("sha256");
  const root = resolve(context);
  hash.update(`containerfile\0${relative(root, resolve(containerfile))}\0`);
  hash.update(readFileSync(containerfile));
  for (const file of listFiles(root)) {
    const full = join(root, file);
    const st = lstatSync(full);
    if (st.isSymbolicLink()) hash.update(`\0link\0${file}\0${readlinkSync(full)}`);
    else {
      hash.update(`\0file\0${file}\0${st.mode & 0o111 ? "x" : "-"}\0${st.size}\0`);
      hash.update(readFileSync(full));
    }
  }
  return hash.digest("hex").slice(0, 16);
}

/** The image name an agent runs: `image:` as given, or `<repository>:<content hash>`. */
export function podmanImageName(agent: string, source: PodmanImageSource): string {
  if (source.image) return source.image;
  if (!source.containerfile) throw new Error("a podman sandbox needs image: or containerfile:");
  return `${podmanRepository(agent)}:${containerfileHash(source.containerfile, source.context)}`;
}

/** What {@link ensurePodmanImage} did. */
export interface EnsuredImage {
  image: string;
  /** True when it ran `podman build`. */
  built: boolean;
  /** The agent's older images it removed. */
  pruned: string[];
}

/**
 * Makes sure the agent's image exists: a named image is left to `podman run` (it pulls it);
 * a Containerfile is built when no image of its hash exists, then the agent's other tags are
 * removed (an image still used by a running container stays: podman refuses, and that is fine).
 */
export async function ensurePodmanImage(agent: string, source: PodmanImageSource, exec: PodmanExec = execPodman): Promise<EnsuredImage> {
  const image = podmanImageName(agent, source);
  if (source.image) return { image, built: false, pruned: [] };
  const exists = await exec(["image", "exists", image]).then(
    () => true,
    () => false,
  );
  let built = false;
  if (!exists) {
    const context = source.context ?? dirname(source.containerfile!);
    await exec(podmanBuildArgs(agent, image, source.containerfile!, context));
    built = true;
  }
  const pruned: string[] = [];
  const { stdout } = await exec(["images", "--filter", `reference=${podmanRepository(agent)}`, "--format", "{{.Repository}}:{{.Tag}}"]);
  for (const old of stdout.split("\n").map((l) => l.trim()).filter((l) => l && l !== image && !l.endsWith(":<none>"))) {
    await exec(["rmi", old]).then(
      () => pruned.push(old),
      () => undefined,
    );
  }
  return { image, built, pruned };
}

/** `podman build` for an agent's Containerfile, labelled so `podman images` shows whose it is. */
export function podmanBuildArgs(agent: string, image: string, containerfile: string, context: string): string[] {
  return ["build", "--tag", image, "--file", containerfile, "--label", `culture.sandbox.agent=${agent}`, context];
}

function listFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (SKIPPED.has(entry.name)) continue;
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() || entry.isSymbolicLink()) out.push(relative(root, full).split(sep).join("/"));
    }
  };
  walk(root);
  return out.sort();
}

/** The file name a Containerfile is usually given, for messages. */
export const containerfileName = (path: string): string => basename(path);
