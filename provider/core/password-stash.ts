// storePassword false keeps a VM's password out of state: check hands the
// engine its salted hash instead. The create that follows must still install
// the password, and the engine gives it only the checked inputs, so check
// keeps the password aside in this process's memory, by URN, for the create
// of the same deployment (the engine checks every resource before it creates
// it). Nothing here is ever written anywhere.
import { LifecycleError } from "../lifecycle";
import type { Bag } from "./bag";

/** The passwords check took out of the inputs, by URN, with the hash that replaced each: one per provider core. */
export class PasswordStash {
  private readonly withheld = new Map<string, { hash: string; password: string }>();

  /** Keeps a password check took out of the inputs, for the create of the resource with this URN. */
  stash(urn: string, hash: string, password: string): void {
    this.withheld.set(urn, { hash, password });
  }

  /** The inputs a create installs with: a withheld password put back, when its hash is the one in the inputs. */
  withPassword(props: Bag, urn: string): Bag {
    const hash = props.passwordHash;
    if (typeof hash !== "string" || props.password !== undefined) return props;
    const kept = this.withheld.get(urn);
    if (kept === undefined || kept.hash !== hash) {
      throw new LifecycleError(
        "password: this deployment did not receive the password (storePassword: false keeps it out of state, and " +
          "only the check of the same deployment hands it to the create); run `pulumi up` again",
      );
    }
    return { ...props, password: kept.password };
  }
}
