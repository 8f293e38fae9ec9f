// Shutting a VM down (falling back to a hard stop on the server's word) and
// starting it, confirmed by watching it. This index is the layer's only entry point.
export { PROGRESS_EVERY_MS, isPowerRefusal, shutdownAndWait, stopAndWait, waitGone } from "./power";
