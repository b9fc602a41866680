// Run after `npm install` changes package-lock.json (`npm run lock:fix`).
//
// Why: @biomejs/biome and @bufbuild/buf ship one binary package per platform as optional
// dependencies. The registry reachable here only holds the Linux ones, so npm leaves the others
// out of the lockfile, and `npm ci` then rejects the lockfile ("Missing: ... from lock file").
// This records each missing platform package with its os/cpu, so `npm ci` accepts the lockfile
// and, as for any optional package of another platform, never fetches it here.
import { readFileSync, writeFileSync } from "node:fs";

const lockPath = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(lockPath, "utf8"));
const packages = lock.packages;
const CPU = { x64: "x64", arm64: "arm64", armv7: "arm", aarch64: "arm64", x86_64: "x64" };
let added = 0;

for (const [path, entry] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const childPath = `${path ? `${path}/` : ""}node_modules/${name}`;
    if (packages[childPath] || packages[`node_modules/${name}`]) continue;
    const platform = /-(android|darwin|linux|win32|freebsd)-([a-z0-9_]+)(-musl)?$/.exec(name);
    if (!platform) continue;
    packages[`node_modules/${name}`] = {
      version: version.replace(/^[\^~]/, ""),
      ...(entry.dev ? { dev: true } : {}),
      optional: true,
      os: [platform[1]],
      cpu: [CPU[platform[2]] ?? platform[2]],
      ...(platform[3] ? { libc: ["musl"] } : {}),
    };
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a.localeCompare(b))),
);
writeFileSync(lockPath, JSON.stringify(lock, null, 2) + "\n");
console.log(`lockfile: recorded ${added} platform-specific optional package(s)`);
