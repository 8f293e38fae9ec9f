// The gopveqemu resource plugin from a Go program, through the real engine
// against the simulator: the six things every consumer does (six-things.ts).
import { goDriver } from "./drivers";
import { sixThings } from "./six-things";

jest.setTimeout(300_000);

sixThings("Go", goDriver);
