// Node.js 22.19 or later, said plainly at load time. undici 8 (the HTTP
// client) needs it, and on Node.js 20 it fails deep inside with "Cannot read
// properties of undefined (reading 'bind')". This module is imported first by
// the package's entry and by the provider implementation, before undici loads.

/** The oldest Node.js this package runs on: undici 8's `engines`. */
const MIN_NODE = { major: 22, minor: 19 } as const;

/** The message for an unsupported Node.js version, or undefined when `version` (e.g. "20.20.2") is fine. */
function nodeVersionProblem(version: string): string | undefined {
  const [major, minor] = version.split(".").map(Number);
  const ok =
    Number.isInteger(major) &&
    Number.isInteger(minor) &&
    (major! > MIN_NODE.major || (major === MIN_NODE.major && minor! >= MIN_NODE.minor));
  if (ok) return undefined;
  const min = `${MIN_NODE.major}.${MIN_NODE.minor}`;
  return (
    `go-pve-qemu-pulumi: Node.js >= ${min} is required (found ${version}). ` +
    `Run pulumi with Node.js ${MIN_NODE.major} first on PATH: install it (nvm install ${MIN_NODE.major}, or your OS package), ` +
    `or add it to the project with \`npm install --save-dev node@${MIN_NODE.major}\` and put node_modules/.bin first on PATH`
  );
}

const problem = nodeVersionProblem(process.versions.node);
if (problem !== undefined) throw new Error(problem);
