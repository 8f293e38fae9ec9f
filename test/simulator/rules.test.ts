// The fault rule fields of gateway, hang, error-frame and the timed shutdown
// failure: validated with errors that name the problem, the same through
// the handle, the admin endpoint and the command line.
import { FaultRuleSchema } from "../../simulator";
import { parseCli } from "../../simulator/cli";
import { request, useSimulators } from "./helpers";

const start = useSimulators();

function problem(rule: unknown): string {
  const parsed = FaultRuleSchema.safeParse(rule);
  if (parsed.success) throw new Error(`accepted: ${JSON.stringify(rule)}`);
  return parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("\n");
}

describe("FaultRuleSchema", () => {
  test("accepts the new kinds with their fields", () => {
    const ok = [
      { kind: "gateway" },
      { kind: "gateway", op: "install", ms: 60_000, status: 502, body: "", contentType: "text/html" },
      { kind: "hang", op: ["stop", "install"] },
      { kind: "error-frame", op: "install", step: "creating VM" },
      { kind: "error-frame", event: "sse_error", then: "continue" },
      { kind: "error-frame", event: "error", then: "continue", flow: "continues" },
      { kind: "error-frame", then: "end", flow: "stops", body: '{"error":"x"}' },
      { kind: "fail", op: "shutdown", ms: 120_000 },
      { kind: "fail", op: ["shutdown"], ms: 0 },
    ];
    for (const rule of ok) expect([rule, FaultRuleSchema.safeParse(rule).success]).toEqual([rule, true]);
  });

  test.each([
    [{ kind: "error-frame", then: "continue" }, 'then: then "continue" needs flow "continues"'],
    [{ kind: "error-frame", flow: "stops", then: "continue" }, 'then: then "continue" needs flow "continues"'],
    [{ kind: "error-frame", op: ["stop", "status"] }, 'op: kind "error-frame" applies only to the SSE operations'],
    [{ kind: "error-frame", event: "error\ndata: x" }, "event: event must be one line"],
    [{ kind: "error-frame", event: "" }, "event:"],
    [{ kind: "error-frame", body: "a\nb" }, "body: an error frame's body must be one line"],
    [{ kind: "error-frame", then: "later" }, "then:"],
    [{ kind: "error-frame", flow: "sometimes" }, "flow:"],
    [{ kind: "drop", then: "close" }, 'then: "then" applies only to kind "error-frame"'],
    [{ kind: "http", event: "error" }, 'event: "event" applies only to kind "error-frame"'],
    [{ kind: "gateway", flow: "stops" }, 'flow: "flow" applies only to kind "error-frame"'],
    [{ kind: "drop", ms: 5 }, 'ms: "ms" applies to kinds "delay" and "gateway", and to "fail" with op "shutdown"'],
    [{ kind: "hang", ms: 5 }, 'ms: "ms" applies'],
    [{ kind: "fail", op: "stop", ms: 5 }, 'ms: "ms" applies'],
    [{ kind: "fail", op: ["shutdown", "stop"], ms: 5 }, 'ms: "ms" applies'],
    [{ kind: "fail", ms: 5 }, 'ms: "ms" applies'],
    [{ kind: "gateway", ms: -1 }, "ms:"],
  ])("rejects %j", (rule, message) => {
    expect(problem(rule)).toContain(message);
  });
});

describe("where rules come in", () => {
  test("the handle and the admin endpoint give the same clear error", async () => {
    const sim = await start();
    const bad = { kind: "error-frame", then: "continue" };
    expect(() => sim.addFault(bad as never)).toThrow(/invalid fault rule[\s\S]*needs flow "continues"/);
    const r = await request(sim.url, "POST", "/_sim/faults", { body: bad });
    expect(r.status).toBe(400);
    expect((JSON.parse(r.body) as { error: string }).error).toMatch(/needs flow "continues"/);
    const ok = await request(sim.url, "POST", "/_sim/faults", { body: [{ kind: "hang", op: "list" }] });
    expect(JSON.parse(ok.body)).toEqual({ ids: ["fault-1"] });
    expect(sim.faults()).toEqual([{ id: "fault-1", kind: "hang", op: "list" }]);
  });

  test("--fault takes them as JSON, and refuses a bad one with the schema's message", () => {
    const frame = { kind: "error-frame", op: "install", step: "creating VM", event: "sse_error", then: "continue" };
    const gateway = { kind: "gateway", op: "install", ms: 29_000 };
    const shutdown = { kind: "fail", op: "shutdown", ms: 60_000 };
    expect(
      parseCli([
        "--fault",
        JSON.stringify(frame),
        "--fault",
        JSON.stringify(gateway),
        "--fault",
        JSON.stringify(shutdown),
      ]),
    ).toEqual({ faults: [frame, gateway, shutdown] });
    expect(() => parseCli(["--fault", '{"kind":"hang","ms":3}'])).toThrow(/invalid command line[\s\S]*"ms" applies/);
  });
});
