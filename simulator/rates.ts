// The measured-rates mode (soak runs): stream corruption injected at the rates
// measured on the real server (recordings/upstream/README.md), wherever its
// command runner streams a command's stdout and stderr at once. One draw per
// streamed command, from the seeded RNG, so a soak run can be replayed.
//   qm migrate (set/node, install's `migrating VM`), per 300 streams:
//     5 broken chunk framing, 17 a line ahead of earlier lines, 2 a frame
//     after `event: close`, 10 lines lost (the server's "some");
//   the init script (install's `SSH initialization`), per 30 streams:
//     2 broken chunk framing, 2 cut mid-stream (4 of 30 end without close).
import type { Rng } from "./random";
import type { Op } from "./fault-rules";
import type { Corruption } from "./sse";

export const MIGRATION_RATES = { garble: 5 / 300, reorder: 17 / 300, late: 2 / 300, lose: 10 / 300 } as const;
export const INIT_SCRIPT_RATES = { garble: 2 / 30, cut: 2 / 30 } as const;

export class MeasuredRates {
  constructor(private readonly rng: Rng) {}

  /** What strikes one streamed command's output of `lines` lines (usually nothing). */
  forOutput(op: Op, step: string, lines: number): Corruption[] {
    const r = this.rng.next();
    const anywhere = (): number => this.rng.below(Math.max(1, lines));
    if (step === "migrating" && (op === "setNode" || op === "install")) {
      const { garble, reorder, late, lose } = MIGRATION_RATES;
      if (r < garble) return [{ kind: "garble", variant: this.variant(), skip: anywhere() }];
      if (r < garble + reorder) {
        // A stderr line jumps ahead of the stdout lines written before it.
        return [{ kind: "reorder", lines: 1 + this.rng.below(2), skip: this.rng.below(Math.max(1, lines - 1)) }];
      }
      if (r < garble + reorder + late) return [{ kind: "late", skip: Math.max(0, lines - 1) }];
      if (r < garble + reorder + late + lose) {
        // cmd.Wait closes the pipes before the readers are done: the last lines go.
        const n = 1 + this.rng.below(2);
        return [{ kind: "lose", lines: n, skip: Math.max(0, lines - n) }];
      }
      return [];
    }
    if (step === "SSH initialization" && op === "install") {
      if (r < INIT_SCRIPT_RATES.garble) return [{ kind: "garble", variant: this.variant(), skip: anywhere() }];
      if (r < INIT_SCRIPT_RATES.garble + INIT_SCRIPT_RATES.cut) return [{ kind: "cut", skip: anywhere() }];
    }
    return [];
  }

  private variant(): "fragment" | "duplicate" {
    return this.rng.chance(0.7) ? "fragment" : "duplicate";
  }
}
