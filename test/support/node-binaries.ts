// The two Node.js binaries the refusal tests run on, never the machine's own:
// the pinned old one (scripts/ensure-old-node.sh holds its version and installs
// it once) on which the package must refuse, and this project's Node.js 22
// (node_modules/.bin/node) on which it must load. So both paths are asserted
// on every machine, whichever Node.js it runs itself.
import { execFile } from "node:child_process";
import * as path from "node:path";
import { promisify } from "node:util";
import { ROOT } from "../../scripts/engine-env";

const exec = promisify(execFile);

export interface NodeBinary {
  /** the `node` executable */
  path: string;
  /** what it reports as process.versions.node, e.g. "20.20.2" */
  version: string;
}

/** The first use installs it from the npm registry (seconds on a good link): the longest a test waits for it. */
export const OLD_NODE_TIMEOUT_MS = 180_000;

/** Whether the package accepts Node.js `version` (22.19 or later, as provider/node-version.ts says). */
function accepted(version: string): boolean {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  return major > 22 || (major === 22 && minor >= 19);
}

async function describeBinary(node: string): Promise<NodeBinary> {
  const { stdout } = await exec(node, ["-p", "process.versions.node"]);
  return { path: node, version: stdout.trim() };
}

/** The pinned Node.js older than the package accepts. */
export async function oldNode(): Promise<NodeBinary> {
  const { stdout } = await exec("bash", [path.join(ROOT, "scripts", "ensure-old-node.sh")], {
    timeout: OLD_NODE_TIMEOUT_MS,
  });
  const node = await describeBinary(path.join(stdout.trim(), "node"));
  // Said here so that no refusal test can pass by loading on it.
  if (accepted(node.version)) throw new Error(`the pinned old Node.js is ${node.version}: pin one older than 22.19`);
  return node;
}

/** This project's Node.js 22 (the npm `node` package), which the package accepts. */
export async function projectNode(): Promise<NodeBinary> {
  const node = await describeBinary(path.join(ROOT, "node_modules", ".bin", "node"));
  if (!accepted(node.version)) throw new Error(`node_modules/.bin/node is Node.js ${node.version}: run npm ci`);
  return node;
}
