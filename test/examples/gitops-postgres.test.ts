// The GitOps example with a team's shared state: Pulumi's DIY backend on a
// real PostgreSQL server (postgres://, compiled into the engine this project
// builds), two runners (two checkouts of the repository) running
// examples/gitops/pipeline.sh on the same stack against the simulator.
// - Two runners at once are serialised by Pulumi's lock: the second fails
//   saying the stack is locked, and the state the first writes is whole.
// - A runner killed mid-`up` (kill -9 of pulumi) leaves its lock; `pulumi
//   cancel` (what clears a DIY backend's locks: it deletes every lock of the
//   stack) clears it, and the next `up` converges with no orphan.
// Skipped, saying why, only outside CI when PostgreSQL cannot run on this
// machine. In CI (CI set; .ci/run installs the package) a missing PostgreSQL
// fails the tier instead: CI never passes without it.
import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { simulatedBounds } from "../../scripts/sim-bounds";
import { findPostgres, startPostgres, type Postgres } from "../../scripts/postgres";
import { EXAMPLES, listVms, newSandbox, run, tail, type RunResult, type Sandbox } from "./support";

jest.setTimeout(300_000);

const GITOPS = path.join(EXAMPLES, "gitops");
const PASSPHRASE = "gitops-team";
const found = findPostgres();
const required = process.env.CI !== undefined && process.env.CI !== "" && process.env.CI !== "false";
// Skipped only outside CI, on a machine without PostgreSQL's server binaries (said in a warning):
// under CI (.ci/run installs them) a missing PostgreSQL fails the tier instead of skipping it.
const tier = "bin" in found || required ? describe : describe.skip;
if (!("bin" in found) && !required) console.warn(`PostgreSQL tier skipped: ${found.reason}`);

tier("GitOps with the state on PostgreSQL", () => {
  let pg: Postgres;
  let box: Sandbox;
  const runners: number[] = [];
  beforeAll(async () => {
    if (!("bin" in found)) throw new Error(`PostgreSQL is required in CI: ${found.reason}`);
    pg = await startPostgres(found.bin);
    box = await newSandbox(PASSPHRASE);
  });
  afterAll(async () => {
    // A runner still going when a test failed (its own process group) must not outlive the suite.
    for (const pid of runners) {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        // ended
      }
    }
    await box?.dispose();
    await pg?.stop();
  });

  /** The environment of a runner: the engine, the shared backend, the CI secrets. */
  const env = (): Record<string, string> => ({
    ...box.env,
    PULUMI_BACKEND_URL: pg.url,
    PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
  });

  /**
   * The stack made once from a workstation (its salt committed), then two
   * checkouts of the repository, one per runner, with the endpoint pointed at
   * the simulator.
   */
  async function twoRunners(stack: string): Promise<[string, string]> {
    const first = box.copyExample("gitops");
    fs.copyFileSync(path.join(first, "Pulumi.prod.yaml"), path.join(first, `Pulumi.${stack}.yaml`));
    await must(run("pulumi", ["stack", "init", stack, "--non-interactive"], { cwd: first, env: env() }));
    await must(
      run("pulumi", ["config", "set", "goPveQemu:endpoint", box.sim.url, "--stack", stack], { cwd: first, env: env() }),
    );
    // The server's step bounds at the speed the simulator runs when a converge follows a VM.
    const bounds = Object.entries({ ...simulatedBounds(2000), "goPveQemu:pollIntervalMs": "200" }).flatMap(
      ([key, value]) => ["--plaintext", `${key}=${value}`],
    );
    await must(run("pulumi", ["config", "set-all", ...bounds, "--stack", stack], { cwd: first, env: env() }));
    const second = box.copyExample("gitops");
    fs.copyFileSync(path.join(first, `Pulumi.${stack}.yaml`), path.join(second, `Pulumi.${stack}.yaml`));
    return [first, second];
  }

  const pipeline = (checkout: string, stack: string, action = "up") =>
    run("bash", [path.join(GITOPS, "pipeline.sh"), action], {
      env: { ...env(), PROGRAM_DIR: checkout, STACK: stack },
    });

  /** The stack's lock files: rows of the backend's table, keyed pulumi/.pulumi/locks/organization/<project>/<stack>/<id>.json. */
  const locks = (stack: string) =>
    pg
      .sql(`SELECT key FROM pulumi_state WHERE key LIKE '%.pulumi/locks/%/${stack}/%'`)
      .then((s) => s.split("\n").filter(Boolean));

  /** The VMs in the stack's state, from `pulumi stack export`. */
  async function vmsInState(checkout: string, stack: string): Promise<number[]> {
    const out = await must(run("pulumi", ["stack", "export", "--stack", stack], { cwd: checkout, env: env() }));
    const deployment = JSON.parse(out.output) as { deployment: { resources?: { type: string; id?: string }[] } };
    return (deployment.deployment.resources ?? [])
      .filter((r) => r.type === "pulumi-nodejs:dynamic/goPveQemu:Vm")
      .map((r) => Number(r.id))
      .sort((a, b) => a - b);
  }

  const onServer = async () => (await listVms(box.sim.url)).map((v) => v.vmid).sort((a, b) => a - b);

  test("two runners on one stack: the second is refused by the lock, the first's state is whole", async () => {
    const [a, b] = await twoRunners("team-lock");
    // Slow installs (about 9 s each) so that the first runner is mid-`up` when the second starts.
    box.sim.settings({ speed: 20 });
    const first = settled(pipeline(a, "team-lock"));
    await until(async () => {
      if (first.result) throw new Error(explain("the first runner ended early", first.result));
      return (await locks("team-lock")).length === 1 && box.sim.stats().installsStarted > 0;
    });

    const second = await pipeline(b, "team-lock");
    expect(second.code).not.toBe(0);
    expect(second.output).toMatch(/the stack is currently locked by 1 lock\(s\)/);

    box.sim.settings({ speed: 2000 });
    const done = await first.promise;
    if (done.code !== 0) throw new Error(explain("the first runner failed", done));
    expect(await locks("team-lock")).toEqual([]);
    const vms = await onServer();
    expect(vms).toHaveLength(3);
    expect(await vmsInState(b, "team-lock")).toEqual(vms);

    // The second runner, run again, finds the state whole: nothing to do.
    const again = await pipeline(b, "team-lock");
    if (again.code !== 0) throw new Error(explain("the second runner failed", again));
    expect(again.output).toMatch(/5 unchanged/); // the stack, its identity, three VMs
    await must(
      run("pulumi", ["destroy", "--yes", "--stack", "team-lock", "--non-interactive"], { cwd: b, env: env() }),
    );
    expect(await onServer()).toEqual([]);
  });

  test("a runner killed mid-up leaves a lock; pulumi cancel clears it and the next up converges with no orphan", async () => {
    const [a, b] = await twoRunners("team-kill");
    box.sim.settings({ speed: 20 });
    const installs = box.sim.stats().installsStarted;
    const killed = spawnRunner(a, "team-kill");
    const ended = settled(killed.done);
    await until(async () => {
      if (ended.result) throw new Error(explain("the runner ended before it was killed", ended.result));
      return box.sim.stats().installsStarted > installs && (await locks("team-kill")).length === 1;
    });
    const pulumiPid = await until(() => childNamed(killed.child.pid!, "pulumi"));
    const languageHost = await until(() => childNamed(pulumiPid, "pulumi-language-nodejs"));
    process.kill(pulumiPid, "SIGKILL");
    // A killed engine leaves its language host running (Pulumi's own; its group is its own), holding
    // the runner's output pipes open: end it here, or the runner's output never closes.
    process.kill(-languageHost, "SIGKILL");
    await killed.done;

    // The lock outlives the runner, and the next runner is refused with what to run.
    expect(await locks("team-kill")).toHaveLength(1);
    const refused = await pipeline(b, "team-kill");
    expect(refused.code).not.toBe(0);
    expect(refused.output).toMatch(/locked by 1 lock\(s\)[\s\S]*pulumi cancel/);

    await must(run("pulumi", ["cancel", "--yes", "--stack", "team-kill", "--non-interactive"], { cwd: b, env: env() }));
    expect(await locks("team-kill")).toEqual([]);

    // The killed runner's install goes on on the server; let it end, then converge.
    box.sim.settings({ speed: 2000 });
    await box.sim.idle();
    const next = await spawnRunner(b, "team-kill").done;
    if (next.code !== 0) throw new Error(explain("the up after cancel failed", next));
    const vms = await onServer();
    expect(vms).toHaveLength(3); // no duplicate
    expect(await vmsInState(b, "team-kill")).toEqual(vms); // no orphan
    await must(
      run("pulumi", ["destroy", "--yes", "--stack", "team-kill", "--non-interactive"], { cwd: b, env: env() }),
    );
    expect(await onServer()).toEqual([]);
  });

  /** pipeline.sh up in its own process group (as a CI job's shell), to kill its pulumi. */
  function spawnRunner(checkout: string, stack: string): { child: ChildProcess; done: Promise<RunResult> } {
    const child = spawn("bash", [path.join(GITOPS, "pipeline.sh"), "up"], {
      env: { ...process.env, ...env(), PROGRAM_DIR: checkout, STACK: stack },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    runners.push(child.pid!);
    let output = "";
    child.stdout!.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (output += d.toString()));
    const done = new Promise<RunResult>((resolve) => child.on("close", (code) => resolve({ code, output })));
    return { child, done };
  }
});

/** A promise whose result can be looked at without waiting. */
function settled<T>(promise: Promise<T>): { promise: Promise<T>; result?: T } {
  const out: { promise: Promise<T>; result?: T } = { promise };
  void promise.then((r) => (out.result = r));
  return out;
}

/** What a failed run said: its error lines first, then its tail. */
function explain(what: string, r: RunResult): string {
  const errors = r.output.split("\n").filter((l) => /\berror: /.test(l));
  return `${what} (exit ${r.code}):\n${errors.join("\n")}\n--- tail ---\n${tail(r.output, 20)}`;
}

async function must(p: Promise<RunResult>): Promise<RunResult> {
  const r = await p;
  if (r.code !== 0) throw new Error(explain("a command failed", r));
  return r;
}

/** The pid of a child process of `parent` whose command line starts with `name` (a path, or the name on PATH), if any. */
async function childNamed(parent: number, name: string): Promise<number | undefined> {
  // -f: a process's short name is cut at 15 characters (pulumi-language-nodejs is "pulumi-language").
  const r = await run("pgrep", ["-P", String(parent), "-f", `^(\\S*/)?${name}( |$)`]);
  const pid = Number(r.output.trim().split("\n")[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** Polls until `f` answers something truthy (the test's own timeout bounds it). */
async function until<T>(f: () => Promise<T | undefined | false> | T | undefined | false): Promise<T> {
  for (;;) {
    const v = await f();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}
