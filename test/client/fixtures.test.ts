// Every recorded stream, fed whole and cut at every byte offset, with LF, CRLF
// and CR line endings and with a BOM: the decoded events, the install facts and
// the decided outcome must not depend on how the bytes were cut.
import { EXPECTATIONS } from "./fixture-expectations";
import {
  bytes,
  chunkEvery,
  fixtureNames,
  fixtureText,
  runPipeline,
  splitAt,
  withLineEnding,
  type LineEnding,
  type PipelineRun,
} from "./helpers/fixtures";

const names = fixtureNames();

/** Everything but the tail (a non-SSE line cut by a chunk boundary may be skipped by the parser). */
function comparable(run: PipelineRun) {
  const o = run.outcome;
  return {
    events: run.events,
    facts: run.facts,
    duplicates: run.duplicates,
    lastEventId: run.lastEventId,
    outcome: o.ok
      ? {
          ok: true,
          kind: o.value.kind,
          warnings: o.value.warnings,
          facts: "facts" in o.value ? o.value.facts : undefined,
        }
      : {
          ok: false,
          shape: o.failure.shape,
          serverMessage: o.failure.serverMessage,
          step: o.failure.step,
          facts: o.failure.facts,
        },
  };
}

test("the fixture directory holds the streams and each has an expectation", () => {
  expect(names.length).toBeGreaterThanOrEqual(30);
  expect(names.filter((n) => !(n in EXPECTATIONS))).toEqual([]);
  expect(Object.keys(EXPECTATIONS).filter((n) => !names.includes(n))).toEqual([]);
});

describe.each(names)("%s", (name) => {
  const exp = EXPECTATIONS[name]!;
  const text = fixtureText(name);
  const whole = bytes(text);
  const opts = { requestName: exp.requestName };
  const run = (chunks: Uint8Array[]) => runPipeline(exp.kind, chunks, opts);
  const reference = run([whole]);
  // streams of other services carry no go-pve-qemu output, so their tail stays empty
  const hasOutput = reference.events.some(
    (e) => e.kind === "step" || e.kind === "raw" || e.kind === "bare" || (e.kind === "other" && e.text !== undefined),
  );

  test("decodes to the expected outcome", () => {
    const o = reference.outcome;
    expect(o.ok).toBe(exp.ok);
    if (o.ok) {
      expect(o.value.kind).toBe(exp.kind);
      if (exp.warnings) expect(o.value.warnings.map((w) => w.message)).toEqual(exp.warnings);
      if (exp.facts) expect("facts" in o.value ? o.value.facts : undefined).toMatchObject(exp.facts);
      if (exp.lastEventId) expect(o.value.lastEventId).toBe(exp.lastEventId);
      expect(o.value.tail.length > 0).toBe(hasOutput);
    } else {
      const f = o.failure;
      expect(f.shape).toBe(exp.shape);
      if (exp.serverMessage instanceof RegExp) expect(f.serverMessage).toMatch(exp.serverMessage);
      else if (exp.serverMessage !== undefined) expect(f.serverMessage).toBe(exp.serverMessage);
      if ("step" in exp) expect(f.step).toBe(exp.step);
      if (exp.facts) expect(f.facts).toMatchObject(exp.facts);
      if (exp.lastEventId) expect(f.lastEventId).toBe(exp.lastEventId);
      expect(f.tail.length > 0).toBe(hasOutput);
    }
    if (exp.duplicates !== undefined) expect(reference.duplicates).toBe(exp.duplicates);
    if (exp.lastEventId !== undefined) expect(reference.lastEventId).toBe(exp.lastEventId);
    for (const [kind, n] of Object.entries(exp.counts ?? {})) {
      expect([kind, reference.events.filter((e) => e.kind === kind).length]).toEqual([kind, n]);
    }
  });

  test("gives the same result cut at every byte offset", () => {
    const want = comparable(reference);
    for (let at = 0; at <= whole.length; at++) {
      const got = comparable(run(splitAt(whole, at)));
      if (JSON.stringify(got) !== JSON.stringify(want)) expect({ at, ...got }).toEqual({ at, ...want });
    }
  });

  test("gives the same result fed one byte at a time and in odd-sized chunks", () => {
    const want = comparable(reference);
    for (const size of [1, 2, 3, 7, 64, 1000]) {
      expect(comparable(run(chunkEvery(whole, size)))).toEqual(want);
    }
  });

  test.each<LineEnding>(["crlf", "cr"])("gives the same result with %s line endings, cut anywhere", (ending) => {
    const want = comparable(reference);
    const data = bytes(withLineEnding(text, ending));
    // every offset for the small streams; a prime stride through the large ones
    const stride = data.length <= 2000 ? 1 : 11;
    for (let at = 0; at <= data.length; at += stride) {
      const got = comparable(run(splitAt(data, at)));
      if (JSON.stringify(got) !== JSON.stringify(want)) expect({ ending, at, ...got }).toEqual({ ending, at, ...want });
    }
    // a CRLF pair cut between its CR and LF must not read as an extra blank line
    const crlfCuts = [...data.keys()].filter((i) => data[i] === 13).map((i) => i + 1);
    for (const at of crlfCuts) expect(comparable(run(splitAt(data, at)))).toEqual(want);
  });

  test("ignores one leading BOM, also when the BOM itself is cut", () => {
    const want = comparable(reference);
    const data = bytes("\uFEFF" + text);
    for (const at of [0, 1, 2, 3, 4]) expect(comparable(run(splitAt(data, at)))).toEqual(want);
  });
});
