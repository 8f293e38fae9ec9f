// A property bag as both ways in hand the core a VM's properties: plain
// values, no key of the engine's or of a way in's among them.

/** A VM's properties, inputs or outputs. */
export type Bag = Record<string, unknown>;
