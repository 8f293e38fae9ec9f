// Every client error carries a stable code (undici's pattern), so callers
// branch on it - above all on GPQ_STREAM_LOST, the outcome the server never told.
import {
  CancelledError,
  ConnectionError,
  HttpStatusError,
  OperationFailedError,
  ResponseShapeError,
} from "../../provider/client/errors";
import type { FailureShape } from "../../provider/client/stream/types";

const ctx = { endpoint: "POST /api/vm/101/start", vmid: 101 };

test("each class has its code, and keeps its name and fields", () => {
  expect(new ConnectionError("x", ctx)).toMatchObject({ code: "GPQ_CONNECTION", name: "ConnectionError", vmid: 101 });
  expect(new CancelledError("x", ctx)).toMatchObject({ code: "GPQ_CANCELLED", name: "CancelledError" });
  expect(new HttpStatusError(500, "boom", ctx)).toMatchObject({
    code: "GPQ_HTTP_STATUS",
    name: "HttpStatusError",
    status: 500,
    serverMessage: "boom",
  });
  expect(new ResponseShapeError("x", ctx)).toMatchObject({ code: "GPQ_RESPONSE_SHAPE", name: "ResponseShapeError" });
});

test("an operation failure's code follows its shape; a broken or silent stream is GPQ_STREAM_LOST", () => {
  const code = (shape: FailureShape): string =>
    new OperationFailedError({ operation: "install", shape, tail: [] }, ctx).code;
  expect(code("connection-lost")).toBe("GPQ_STREAM_LOST");
  expect(code("idle-timeout")).toBe("GPQ_STREAM_LOST");
  expect(code("error-event")).toBe("GPQ_SERVER_ERROR");
  expect(code("bare-message")).toBe("GPQ_SERVER_REFUSED");
  expect(code("no-completion")).toBe("GPQ_NO_COMPLETION");
  expect(code("overall-timeout")).toBe("GPQ_OVERALL_TIMEOUT");
  expect(code("aborted")).toBe("GPQ_CANCELLED");
});
