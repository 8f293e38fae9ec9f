// The bounds of the server's steps that have no timeout of their own are
// stack config like every other timing.
import { phaseBounds } from "../../provider/client/stream/wire";
import { openBoundsOf } from "../../provider/lifecycle/core/context";
import type { LifecycleContext } from "../../provider/lifecycle/core/context";
import { readSettings } from "../../provider/settings/settings";
import { simulatedBounds } from "../../scripts/sim-bounds";
import { ProcessScope } from "../../provider/lifecycle";

const ctxStub: LifecycleContext = {
  process: new ProcessScope(),
  reporter: { info: () => undefined, warn: () => undefined, debug: () => undefined },
  client: () => {
    throw new Error("no client here");
  },
};

test("goPveQemu:imageDownloadBoundMs and the other step bounds are read from stack config", () => {
  const config: Record<string, string> = {
    "goPveQemu:imageDownloadBoundMs": "3600000",
    "goPveQemu:initScriptBoundMs": "900000",
    "goPveQemu:migrateBoundMs": "600000",
    "goPveQemu:commandBoundMs": "20000",
    "goPveQemu:sshWaitBoundMs": "12000",
  };
  expect(readSettings((k) => config[k], {}).timing).toEqual({
    imageDownloadBoundMs: 3_600_000,
    initScriptBoundMs: 900_000,
    migrateBoundMs: 600_000,
    commandBoundMs: 20_000,
    sshWaitBoundMs: 12_000,
  });
  expect(() => readSettings((k) => (k === "goPveQemu:initScriptBoundMs" ? "soon" : undefined), {})).toThrow(
    'config goPveQemu:initScriptBoundMs: "soon" is not allowed',
  );
});

test("the SSH wait bound reaches the phases that wait for SSH, and a simulator's speed scales every bound", () => {
  const open = openBoundsOf({ ...ctxStub, timing: { sshWaitBoundMs: 12_000 } });
  expect(phaseBounds(open).waitReady).toBe(12_000);
  expect(phaseBounds(open).waitAfterReboot).toBe(12_000);
  expect(phaseBounds(openBoundsOf(ctxStub)).waitReady).toBe(600_000);
  const at50 = simulatedBounds(50);
  expect(at50["goPveQemu:sshWaitBoundMs"]).toBe("12000");
  expect(at50["goPveQemu:initScriptBoundMs"]).toBe("24000");
  // the floor keeps room for the requests themselves
  expect(simulatedBounds(2000)["goPveQemu:commandBoundMs"]).toBe("2000");
  const read = readSettings((k) => at50[k], {}).timing;
  expect(read.sshWaitBoundMs).toBe(12_000);
});
