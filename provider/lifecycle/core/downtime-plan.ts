// What preview says of a rollout: per downtime group (and per server, with a
// server cap), how many VMs this deployment takes down, at most how many at
// once, and so in how many waves at least. The engine diffs each resource on
// its own, so the diffs of one deployment are counted here as they come, and
// said as a line of the whole stack. By default the engine diffs one resource
// after another (each diff inside its handling of one registration): a first
// burst of one shows it, and from then on each diff says the count so far at
// once. Holding each diff would slow the preview by the wait per VM and, at
// `up`, spread the updates' starts apart. Where the engine diffs side by side
// (PULUMI_PARALLEL_DIFF), each diff waits until no other note came for a short
// while, and the burst's count is said once. Either way the last line is the plan.
import { budgetOf, type DowntimeRules } from "./downtime-budget";

/** How long the diffs of one burst may be apart. */
const QUIET_MS = 250;

interface Tally {
  vms: Set<string>;
  /** the count last said */
  said: number;
  timer: NodeJS.Timeout | undefined;
  waiting: (() => void)[];
  /** the last burst held one diff alone: the engine diffs one at a time, and waiting only costs */
  oneByOne: boolean;
}

/** One scope of the plan: a group, or the VMs of one server under a cap. */
export interface PlanScope {
  key: string;
  /** `downtime group "web"` */
  name: string;
  /** its budget; undefined: none */
  limit: number | undefined;
  /** where the limit is set, for the sentence */
  setting: string;
}

export class DowntimePlan {
  private readonly tallies = new Map<string, Tally>();

  /**
   * Notes that `vm` goes down in each scope, and resolves once the burst of
   * diffs is over; `say` gets the plan's line of each scope whose count grew.
   */
  note(vm: string, scopes: PlanScope[], say: (line: string) => void, quietMs = QUIET_MS): Promise<void> {
    return Promise.all(scopes.map((scope) => this.noteIn(scope, vm, say, quietMs))).then(() => undefined);
  }

  private noteIn(scope: PlanScope, vm: string, say: (line: string) => void, quietMs: number): Promise<void> {
    let tally = this.tallies.get(scope.key);
    if (tally === undefined) {
      tally = { vms: new Set(), said: 0, timer: undefined, waiting: [], oneByOne: false };
      this.tallies.set(scope.key, tally);
    }
    const t = tally;
    t.vms.add(vm);
    const sayGrown = (): void => {
      if (t.vms.size <= t.said) return;
      t.said = t.vms.size;
      say(planLine(scope, t.vms.size));
    };
    if (t.oneByOne && t.waiting.length === 0) {
      sayGrown();
      return Promise.resolve();
    }
    clearTimeout(t.timer);
    return new Promise<void>((resolve) => {
      t.waiting.push(resolve);
      t.timer = setTimeout(() => {
        t.timer = undefined;
        t.oneByOne = t.waiting.length === 1;
        sayGrown();
        for (const done of t.waiting.splice(0)) done();
      }, quietMs);
    });
  }
}

/** The scopes a VM of `group` on this server is counted in. */
export function planScopes(
  group: string | undefined,
  server: { key: string; endpoint: string },
  rules: DowntimeRules,
): PlanScope[] {
  const out: PlanScope[] = [];
  if (group !== undefined) {
    out.push({
      key: `group:${group}`,
      name: `downtime group ${JSON.stringify(group)}`,
      limit: budgetOf(rules, group),
      setting: "downtimeBudgets",
    });
  }
  if (rules.perServer !== undefined) {
    out.push({
      key: `server:${server.key}`,
      name: `the VMs of ${server.endpoint}`,
      limit: rules.perServer,
      setting: "maxDownPerServer",
    });
  }
  return out;
}

/** `downtime group "web": 12 VMs go down in this deployment, at most 3 at once (downtimeBudgets): 4 waves at least` */
function planLine(scope: PlanScope, count: number): string {
  const vms = count === 1 ? "1 VM goes" : `${count} VMs go`;
  const head = `${scope.name}: ${vms} down in this deployment`;
  if (scope.limit === undefined) {
    return `${head}, as many at once as Pulumi runs updates together (no budget: set one in ${scope.setting})`;
  }
  const atOnce = Math.min(scope.limit, count);
  const waves = Math.ceil(count / atOnce);
  return `${head}, at most ${atOnce} at once (${scope.setting}: ${scope.limit}): ${waves} ${waves === 1 ? "wave" : "waves"} at least`;
}
