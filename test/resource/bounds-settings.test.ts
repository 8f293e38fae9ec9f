// The bounds of the server's steps that have no timeout of their own are
// stack config like every other timing.
import { readSettings } from "../../provider/resource/settings";

test("goPveQemu:imageDownloadBoundMs and the other step bounds are read from stack config", () => {
  const config: Record<string, string> = {
    "goPveQemu:imageDownloadBoundMs": "3600000",
    "goPveQemu:initScriptBoundMs": "900000",
    "goPveQemu:migrateBoundMs": "600000",
    "goPveQemu:commandBoundMs": "20000",
  };
  expect(readSettings((k) => config[k], {}).timing).toEqual({
    imageDownloadBoundMs: 3_600_000,
    initScriptBoundMs: 900_000,
    migrateBoundMs: 600_000,
    commandBoundMs: 20_000,
  });
  expect(() => readSettings((k) => (k === "goPveQemu:initScriptBoundMs" ? "soon" : undefined), {})).toThrow(
    'config goPveQemu:initScriptBoundMs: "soon" is not allowed',
  );
});
