// The generated Node.js SDK (sdk/nodejs, the npm package @go-pve-qemu/pulumi)
// as a user's project holds it once installed: compiled into the program's
// node_modules, for programs that run on the resource plugin's SDK.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { ROOT } from "../../scripts/engine-env";

export const SDK_PACKAGE = "@go-pve-qemu/pulumi";

/** Compiles the SDK into `<dir>/node_modules/@go-pve-qemu/pulumi`. */
export function installSdk(dir: string): void {
  const sdk = path.join(ROOT, "sdk", "nodejs");
  const installed = path.join(dir, "node_modules", ...SDK_PACKAGE.split("/"));
  const tsc = path.join(ROOT, "node_modules", "typescript", "bin", "tsc");
  execFileSync(process.execPath, [tsc, "-p", sdk, "--outDir", installed], { stdio: "pipe" });
  const manifest = JSON.parse(fs.readFileSync(path.join(sdk, "package.json"), "utf8")) as Record<string, unknown>;
  fs.writeFileSync(
    path.join(installed, "package.json"),
    JSON.stringify({ ...manifest, main: "index.js", types: "index.d.ts" }),
  );
}
