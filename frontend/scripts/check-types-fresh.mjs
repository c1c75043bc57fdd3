// Fails when src/api/schema.d.ts was not regenerated after openapi/schema.yaml changed.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const committed = join(root, "src/api/schema.d.ts");
const dir = mkdtempSync(join(tmpdir(), "crucible-types-"));
const fresh = join(dir, "schema.d.ts");

try {
  execFileSync(
    join(root, "node_modules/.bin/openapi-typescript"),
    [join(root, "openapi/schema.yaml"), "-o", fresh],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
  let current = "";
  try {
    current = readFileSync(committed, "utf8");
  } catch {
    // A missing file is as stale as an outdated one.
  }
  if (readFileSync(fresh, "utf8") !== current) {
    console.error(
      "frontend/src/api/schema.d.ts is out of date with frontend/openapi/schema.yaml: run `make types` and commit the result.",
    );
    process.exit(1);
  }
  console.log("API types are up to date with openapi/schema.yaml.");
} finally {
  rmSync(dir, { recursive: true, force: true });
}
