// The gopveqemu resource plugin from a TypeScript program, through the real engine
// against the simulator: the six things every consumer does (six-things.ts).
import { typescriptDriver } from "./drivers";
import { sixThings } from "./six-things";

jest.setTimeout(300_000);

sixThings("TypeScript", typescriptDriver);
