#!/usr/bin/env node
// `go-pve-qemu-pulumi <command>`, the package's command line (its `bin`).
// First the package's Node.js check, said in one line with exit code 1
// instead of a stack trace; the commands load only once it passed, since
// they load undici, which fails obscurely on an older Node.js.
function nodeSupported(): boolean {
  try {
    require("../node-version");
    return true;
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
    return false;
  }
}
if (nodeSupported()) {
  const { main } = require("./main") as typeof import("./main");
  void main(process.argv.slice(2));
}
