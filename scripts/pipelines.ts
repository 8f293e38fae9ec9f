// Several GitOps pipelines at once on one server: N stacks (default 4), each
// of M VMs without a pinned VMID (default 10, so the server picks every VMID
// and installs race for them), `up` in all stacks at the same time, then
// `destroy` in all, for R rounds (default 3), through the real `pulumi` CLI
// against the simulator.
//
//   npm run build && node dist/scripts/pipelines.js [--pipelines 4] [--vms 10] [--rounds 3] [--speed 200]
//
// Per round it prints: failed deployments (an `up` or `destroy` that did not
// succeed), orphans (VMs on the server in no stack's state after the ups),
// VMIDs in two states (or twice in one),
// VMs left after the destroys, VMID collisions the server reported (each one
// an install the provider had to retry), and seconds.
import { startSimulator } from "../simulator";
import { newCliStack, type CliStack } from "./cli-stack";
import { simulatedBounds } from "./sim-bounds";

interface Options {
  pipelines: number;
  vms: number;
  rounds: number;
  speed: number;
}

function parseArgs(argv: string[]): Options {
  const opts: Options = { pipelines: 4, vms: 10, rounds: 3, speed: 200 };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i]?.replace(/^--/, "") as keyof Options;
    if (!(key in opts) || !Number.isInteger(Number(argv[i + 1]))) {
      throw new Error(`pipelines: bad argument ${argv[i]} ${argv[i + 1] ?? ""}`);
    }
    opts[key] = Number(argv[i + 1]);
  }
  return opts;
}

const OSES = [
  { os: "ubuntu", version: "24.04" },
  { os: "debian", version: "12" },
  { os: "rockylinux", version: "9" },
];

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  const sim = await startSimulator({ speed: opts.speed });
  console.log(
    `pipelines: ${opts.pipelines} stacks x ${opts.vms} VMs without vmid, one server, ${opts.rounds} rounds, speed ${opts.speed}`,
  );
  const stacks: CliStack[] = [];
  try {
    for (let p = 0; p < opts.pipelines; p++) {
      const vms = Object.fromEntries(
        Array.from({ length: opts.vms }, (_, i) => [`p${p}vm${i}`, { ...OSES[i % OSES.length], name: `p${p}vm${i}` }]),
      );
      stacks.push(
        await newCliStack({
          name: `pipeline${p}`,
          endpoint: sim.url,
          vms,
          config: { ...simulatedBounds(opts.speed), "goPveQemu:pollIntervalMs": "250" },
        }),
      );
    }
    const totals = { failed: 0, orphans: 0, doubled: 0, left: 0, collisions: 0 };
    for (let round = 1; round <= opts.rounds; round++) {
      const t0 = Date.now();
      const collisionsBefore = sim.stats().vmidCollisions;
      const ups = await Promise.all(stacks.map((s) => s.run(["up", "--yes", "--skip-preview"])));
      const held = (await Promise.all(stacks.map((s) => s.vmidsInState()))).flat();
      const inState = new Set(held);
      const doubled = held.length - inState.size;
      const orphans = sim.vms().filter((v) => !inState.has(v.vmid)).length;
      const collisions = sim.stats().vmidCollisions - collisionsBefore;
      const downs = await Promise.all(stacks.map((s) => s.run(["destroy", "--yes", "--skip-preview"])));
      const failed = [...ups, ...downs].filter((r) => r.code !== 0);
      const left = sim.vms().length;
      totals.failed += failed.length;
      totals.orphans += orphans;
      totals.doubled += doubled;
      totals.left += left;
      totals.collisions += collisions;
      console.log(
        `round ${round}: failed deployments ${failed.length}, orphans ${orphans}, VMIDs in two states ${doubled}, ` +
          `left after destroy ${left}, ` +
          `VMID collisions (each one retried) ${collisions}, ${((Date.now() - t0) / 1000).toFixed(1)}s` +
          failed.map((f) => `\n  failed: ${firstError(f.output)}`).join(""),
      );
      // A round that left VMs must not spill into the next one.
      for (const v of sim.vms()) sim.removeVm(v.vmid);
    }
    console.log(
      `total: failed deployments ${totals.failed}, orphans ${totals.orphans}, VMIDs in two states ${totals.doubled}, ` +
        `left ${totals.left}, VMID collisions ${totals.collisions}`,
    );
  } finally {
    for (const s of stacks) s.dispose();
    await sim.close();
  }
}

function firstError(output: string): string {
  const line = output.split("\n").find((l) => /error: /.test(l) && !/update failed/.test(l));
  return (line ?? output.split("\n").filter(Boolean).at(-1) ?? "").trim().slice(0, 200);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
