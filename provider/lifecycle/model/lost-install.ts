// The stored record of an install whose stream was lost: the step it had
// reached and the deadlines after which the server can no longer create,
// start or remove its VM. It lives in the resource's state, so it is a schema
// of its own, below every rule that computes or reads it.
import { z } from "zod";
import { PHASES } from "../../client";

/** Kept in state for an unconfirmed install; clock times in ms. */
export const LostInstallSchema = z.object({
  /** the last step the stream showed ("" before the first) */
  step: z.string(),
  phase: z.enum(PHASES),
  /** when the stream was lost */
  lostAt: z.number(),
  /** after this the server can no longer create the VM */
  createBy: z.number(),
  /** after this the install will not start a stopped VM any more */
  startBy: z.number(),
  /** after this the server can no longer remove the VM (its clean-up steps are over) */
  undoBy: z.number(),
  /** after this every question is answered */
  settleBy: z.number(),
  /** the VM was seen on the server since */
  seen: z.boolean(),
  /** why it was recorded before the server's answers could settle it */
  reason: z.string().optional(),
});
export type LostInstall = z.infer<typeof LostInstallSchema>;

/** The one install state beside complete / failed (installComplete). */
export const InstallStateSchema = z.enum(["unconfirmed"]);
