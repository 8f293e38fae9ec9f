// The one way the rules' view of a VM is taken from the server: observe it,
// reduce the observation to a Look, and turn a failed read into an
// "unreadable" look, which every table knows how to wait out. A cancelled
// read is not an unreadable server, so it is passed on when asked.
import type { GoPveQemuApi } from "../../client";
import { isRefused } from "../../client";
import { lookOf } from "./look";
import type { Look } from "./look";
import { observe } from "./observe";
import type { Expectations, Observation } from "./observe";
import { errorText } from "../core";
import type { Redactor } from "../core";

/** A Look with the Observation it was made from (none when the server could not be read). */
export interface ObservedLook {
  look: Look;
  /** the observation behind the look; absent when the server could not be read */
  observation?: Observation;
}

/** A read that failed, as a look: whether the connection was refused is evidence of its own. */
export function unreadable(err: unknown, redact: Redactor): Look {
  return { kind: "unreadable", error: errorText(err, redact), ...(isRefused(err) ? { refused: true } : {}) };
}

/** One look at VM `vmid`; `passCancel`: a read that failed because `signal` was aborted throws. */
export async function lookAt(
  client: GoPveQemuApi,
  vmid: number,
  expect: Expectations,
  how: { redact: Redactor; signal?: AbortSignal; passCancel?: boolean },
): Promise<ObservedLook> {
  try {
    const observation = await observe(client, vmid, expect, how.signal);
    return { look: lookOf(observation), observation };
  } catch (err) {
    if (how.passCancel && how.signal?.aborted) throw err;
    return { look: unreadable(err, how.redact) };
  }
}
