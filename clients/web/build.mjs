// Builds the web client into dist/ (committed; the lobby's web port serves it at /):
//   node build.mjs             generate src/gen from protos/ (git-ignored), type-check, bundle into dist/
//   node build.mjs --out DIR   the same bundle into DIR, without the type-check:
//                              tests/unit/web/test_web_dist.py builds so and compares DIR with dist/
//   node build.mjs --check     type-check, bundle into a temporary folder and fail when dist/ is not
//                              byte for byte what the sources make (scripts/test runs this)
// The output is deterministic: the same sources give the same bytes (no times, no absolute paths;
// the ?v= cache-busters in index.html are digests of the files they name). The generated code
// embeds the protos' descriptors without their comments, so editing a comment in protos/ changes
// nothing in dist/; changing a message does.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const bin = (name) => join(here, "node_modules", ".bin", name);

function generate(out) {
  rmSync(out, { recursive: true, force: true });
  const template = readFileSync(join(here, "buf.gen.yaml"), "utf8").replace("out: src/gen", `out: ${out}`);
  execFileSync(bin("buf"), ["generate", join(root, "protos"), "--template", template], {
    cwd: here, stdio: "inherit", env: { ...process.env, PATH: `${join(here, "node_modules", ".bin")}:${process.env.PATH}` },
  });
}

async function bundle(out) {
  const result = await esbuild.build({
    entryPoints: [join(here, "src", "main.ts")],
    bundle: true,
    minify: true,
    format: "esm",
    target: ["es2022"],
    legalComments: "none",
    charset: "utf8",
    write: false,
    outfile: join(out, "app.js"),
    absWorkingDir: here,
  });
  const js = result.outputFiles[0].contents;
  const css = readFileSync(join(here, "static", "style.css"));
  const short = (data) => createHash("sha256").update(data).digest("hex").slice(0, 12);
  const html = readFileSync(join(here, "static", "index.html"), "utf8")
    .replace("app.js", `app.js?v=${short(js)}`).replace("style.css", `style.css?v=${short(css)}`);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, "app.js"), js);
  writeFileSync(join(out, "style.css"), css);
  writeFileSync(join(out, "index.html"), html);
}

const out = opt("--out");
const check = args.includes("--check");
generate(join(here, "src", "gen"));
if (!out) execFileSync(bin("tsc"), ["--noEmit", "-p", "tsconfig.json"], { cwd: here, stdio: "inherit" });
if (check) {
  const fresh = mkdtempSync(join(tmpdir(), "wordarena-web-"));
  await bundle(fresh);
  const dist = join(here, "dist");
  const names = (dir) => readdirSync(dir).sort().join(",");
  const same = names(fresh) === names(dist)
    && readdirSync(fresh).every((f) => readFileSync(join(fresh, f)).equals(readFileSync(join(dist, f))));
  rmSync(fresh, { recursive: true, force: true });
  if (!same) {
    console.error("clients/web/dist is stale: rebuild it with `npm run build` in clients/web and commit dist/");
    process.exit(1);
  }
} else {
  await bundle(out ?? join(here, "dist"));
}
