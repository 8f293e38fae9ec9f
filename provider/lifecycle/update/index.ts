// Updating a VM in place: settle, plan, then run each step, streamed ones
// watched to their end. This index is the layer's only entry point.
export { update } from "./update";
