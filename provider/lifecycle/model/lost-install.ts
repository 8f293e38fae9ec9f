// The stored record of an install whose stream was lost: the step it had
// reached and the deadlines after which the server can no longer create,
// start or remove its VM. It lives in the resource's state, so it is a schema
// of its own, below every rule that computes or reads it.
import { z } from "zod";
import { PHASES } from "../../client";

/** Kept in state for an unconfirmed install; clock times in ms. */
export const LostInstallSchema = z.object({
  step: z.string().meta({ description: 'the last step the stream showed ("" before the first)' }),
  phase: z.enum(PHASES).meta({ title: "InstallPhase" }),
  lostAt: z.number().meta({ description: "when the stream was lost" }),
  createBy: z.number().meta({ description: "after this the server can no longer create the VM" }),
  startBy: z.number().meta({ description: "after this the install will not start a stopped VM any more" }),
  undoBy: z
    .number()
    .meta({ description: "after this the server can no longer remove the VM (its clean-up steps are over)" }),
  settleBy: z.number().meta({ description: "after this every question is answered" }),
  seen: z.boolean().meta({ description: "the VM was seen on the server since" }),
  reason: z
    .string()
    .optional()
    .meta({ description: "why it was recorded before the server's answers could settle it" }),
});
export type LostInstall = z.infer<typeof LostInstallSchema>;

/** The one install state beside complete / failed (installComplete). */
export const InstallStateSchema = z.enum(["unconfirmed"]);
