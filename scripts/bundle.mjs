// Bundles each service main into dist/<service>.js: workspace code (@gw/*, including the generated
// Prisma client and proto stubs) is inlined, npm dependencies stay external and load from
// node_modules. Migrations are copied beside the bundles, where libs/db looks for them.
import { cpSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const quiet = process.argv.includes("--quiet");
const entries = {
  standalone: "services/standalone/src/main.ts",
  seed: "services/standalone/src/seed-cli.ts",
  ingress: "services/ingress/src/main.ts",
  routing: "services/routing/src/main.ts",
  budget: "services/budget/src/main.ts",
  "usage-writer": "services/usage-writer/src/main.ts",
  audit: "services/audit/src/main.ts",
  "admin-api": "services/admin-api/src/main.ts",
  "metrics-exporter": "services/metrics-exporter/src/main.ts",
};

const externalNpmPackages = {
  name: "external-npm-packages",
  setup(builder) {
    builder.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith("@gw/") || args.path.startsWith("node:")) return undefined;
      return { path: args.path, external: true };
    });
  },
};

const started = Date.now();
await build({
  absWorkingDir: root,
  entryPoints: Object.entries(entries).map(([out, input]) => ({ in: input, out })),
  outdir: "dist",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  sourcemap: true,
  logLevel: quiet ? "warning" : "info",
  plugins: [externalNpmPackages],
});
rmSync(join(root, "dist/migrations"), { recursive: true, force: true });
cpSync(join(root, "libs/db/prisma/migrations"), join(root, "dist/migrations"), { recursive: true });
if (!quiet)
  console.log(`bundled ${Object.keys(entries).length} entries into dist/ in ${Date.now() - started} ms`);
