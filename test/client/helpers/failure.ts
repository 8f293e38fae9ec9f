// The OperationFailedError a streamed call rejects with (any other outcome fails the test).
import { OperationFailedError } from "../../../provider/client/errors";

export async function failure(p: Promise<unknown>): Promise<OperationFailedError> {
  try {
    await p;
  } catch (err) {
    if (!(err instanceof OperationFailedError)) throw err;
    return err;
  }
  throw new Error("expected an OperationFailedError");
}
