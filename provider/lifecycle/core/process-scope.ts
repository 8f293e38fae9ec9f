// What the operations of one process coordinate through: the install gates
// (the VMID race), the holds of names being installed, the pace of power
// reads per server, and the downtime budgets of a rollout and preview's plan of it. One object per provider process, made by its owner (the
// provider core, or a test) and handed to every operation in its context:
// nothing of it lives in module state.
import { DowntimeBudget } from "./downtime-budget";
import { DowntimePlan } from "./downtime-plan";
import { InstallGates } from "./install-gates";
import { NameHolds } from "./name-holds";
import { PowerPace } from "./power-pace";

export class ProcessScope {
  readonly installGates = new InstallGates();
  readonly nameHolds = new NameHolds();
  readonly powerPace = new PowerPace();
  readonly downtime = new DowntimeBudget();
  readonly downtimePlan = new DowntimePlan();
}
