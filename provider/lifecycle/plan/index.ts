// What changes and how: the diff the engine asks for, and the ordered steps of
// an update. This index is the layer's only entry point.
export { diff } from "./diff";
export { refuseDowntime } from "./downtime";
export { describeStep, planUpdate } from "./plan";
export type { Step } from "./plan";
