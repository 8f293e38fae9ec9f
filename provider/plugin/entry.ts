// The resource plugin's executable (`pulumi-resource-gopveqemu` runs it):
// what loads first, before anything heavy, as in the dynamic provider's
// implementation.
// First: the Node.js version is checked before undici loads (it fails obscurely on 20).
import "../node-version";
// Then Node's compile cache, before the heavy modules below load.
import "../compile-cache";
import { serve } from "./index";

serve(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`pulumi-resource-gopveqemu: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
