// Preloaded (NODE_OPTIONS=--require) into every Node.js process of a profiled
// benchmark run: a CPU profile through the inspector, written in slices of
// two seconds. `node --cpu-prof` writes its profile only on a clean exit, and
// the engine ends its provider plugins with a signal, so a profile that waits
// for the end is lost; slices already written survive. Each file is named by
// the process's kind: provider (the dynamic provider host), program (the
// language host's node process) or other.
//
// The folder comes from GPQ_PROFILE_DIR. Used by engine-overhead --profile;
// read with profile-top.js.
import * as fs from "node:fs";
import { Session } from "node:inspector";
import * as path from "node:path";

const dir = process.env.GPQ_PROFILE_DIR;
if (dir) {
  const args = process.argv.join(" ");
  const kind = args.includes("dynamic-provider") ? "provider" : args.includes("@pulumi") ? "program" : "other";
  const session = new Session();
  session.connect();
  let slice = 0;
  const write = (profile: unknown): void => {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `${kind}.${process.pid}.${slice++}.cpuprofile`), JSON.stringify(profile));
  };
  const cut = (restart: boolean): void => {
    session.post("Profiler.stop", (err, res) => {
      if (!err && res?.profile) write(res.profile);
      if (restart) session.post("Profiler.start");
    });
  };
  session.post("Profiler.enable", () => session.post("Profiler.start"));
  setInterval(() => cut(true), 2000).unref();
  process.on("exit", () => cut(false));
  // The engine stops its plugins with a signal: write the last slice, then end as the signal would.
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      cut(false);
      process.kill(process.pid, signal);
    });
  }
}
