// Node.js 22 or later, said plainly at load time. undici 8 (the HTTP client)
// needs it, and on Node.js 20 it fails deep inside with "Cannot read
// properties of undefined (reading 'bind')". This module is imported first by
// the package's entry and by the provider implementation, before undici loads.

/** The oldest Node.js major this package runs on. */
export const MIN_NODE_MAJOR = 22;

/** The message for an unsupported Node.js version, or undefined when `version` (e.g. "20.20.2") is fine. */
export function nodeVersionProblem(version: string): string | undefined {
  const major = Number(version.split(".")[0]);
  if (Number.isInteger(major) && major >= MIN_NODE_MAJOR) return undefined;
  return (
    `go-pve-qemu-pulumi: Node.js >= ${MIN_NODE_MAJOR} is required (found ${version}). ` +
    `Run pulumi with Node.js ${MIN_NODE_MAJOR} first on PATH: install it (nvm install ${MIN_NODE_MAJOR}, or your OS package), ` +
    `or add it to the project with \`npm install --save-dev node@${MIN_NODE_MAJOR}\` and put node_modules/.bin first on PATH`
  );
}

const problem = nodeVersionProblem(process.versions.node);
if (problem !== undefined) throw new Error(problem);
