// One resource whose create runs for `PROBE_CREATE_MS` (default 60 s) and
// writes, to the file named by PROBE_LOG (one JSON line each), everything the
// dynamic provider process can observe meanwhile: signals, its parent going
// away (ppid changes), stdin closing, its own exit. With PROBE_TRAP=0 no
// signal handler is installed, to see what the default dispositions do; with
// PROBE_RETURN_ON_SIGNAL=1 the create answers at once on the first signal,
// to see whether the engine still records an answer given then.
import * as pulumi from "@pulumi/pulumi";

const probe: pulumi.dynamic.ResourceProvider = {
  async create() {
    const fs = require("node:fs") as typeof import("node:fs");
    const file = process.env.PROBE_LOG!;
    const t0 = Date.now();
    const note = (what: string, extra: object = {}) =>
      fs.appendFileSync(file, JSON.stringify({ t: Date.now() - t0, pid: process.pid, what, ...extra }) + "\n");
    note("create", { ppid: process.ppid, stdin: fs.fstatSync(0).isFIFO() ? "pipe" : "other" });
    let signalled = false;
    if (process.env.PROBE_TRAP !== "0") {
      for (const sig of ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGPIPE"] as const) {
        process.on(sig, () => {
          note(sig);
          signalled = true;
        });
      }
    }
    const returnOnSignal = process.env.PROBE_RETURN_ON_SIGNAL === "1";
    process.stdin.on("end", () => note("stdin end"));
    process.stdin.on("close", () => note("stdin close"));
    process.stdin.on("error", (e) => note("stdin error", { message: String(e) }));
    process.stdin.resume();
    process.on("exit", (code) => note("exit", { code }));
    let ppid = process.ppid;
    const ms = Number(process.env.PROBE_CREATE_MS ?? 60_000);
    while (Date.now() - t0 < ms && !(returnOnSignal && signalled)) {
      await new Promise((r) => setTimeout(r, 100));
      if (process.ppid !== ppid) {
        note("parent changed", { from: ppid, to: process.ppid });
        ppid = process.ppid;
      }
    }
    note(signalled && returnOnSignal ? "create answers early" : "create done");
    return { id: "probe", outs: {} };
  },
};

class Probe extends pulumi.dynamic.Resource {
  constructor(name: string) {
    super(probe, name, {});
  }
}
export const id = new Probe("probe").id;
