// The one shape of a partially created or updated VM, for both ways in. The
// engine records a resource as partially created/updated when the error
// carries `id` and `properties` (ErrorResourceInitFailed): Pulumi's dynamic
// provider host and its plugin server both read those fields off the error
// a method throws; `reasons` are shown. A way in may put `properties` into its
// own wire format before the error leaves it.
import type { Bag } from "./bag";

export class PartialFailure extends Error {
  constructor(
    message: string,
    readonly id: string,
    public properties: Bag,
    readonly reasons: string[],
  ) {
    super(message);
  }
}

/** Runs `work`; a partial failure leaves with its properties in a way in's wire format (`toWire`). */
export async function onWire<T>(work: Promise<T>, toWire: (properties: Bag) => Bag): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof PartialFailure) err.properties = toWire(err.properties);
    throw err;
  }
}
