import { lstat, unlink } from "node:fs/promises";
import { connect } from "node:net";

/** Filesystem path of a "unix:path" / "unix:///abs/path" address; undefined for anything else. */
export function unixSocketPath(address: string): string | undefined {
  if (!address.startsWith("unix:")) return undefined;
  const rest = address.slice("unix:".length);
  return rest.startsWith("//") ? rest.slice(2) : rest;
}

function isSocketAlive(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/**
 * Removes a socket file left behind by a process that died without closing its server (a restart
 * inside the same container would otherwise fail with EADDRINUSE). A socket someone still listens on
 * is left alone, so binding it fails loudly as it should.
 */
export async function removeStaleUnixSocket(path: string): Promise<boolean> {
  const stats = await lstat(path).catch(() => undefined);
  if (!stats?.isSocket()) return false;
  if (await isSocketAlive(path)) return false;
  await unlink(path).catch(() => undefined);
  return true;
}
