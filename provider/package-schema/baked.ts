// The download URL a built package carries: a release writes its schema
// (with the URL given to `npm run release -- --download-url`) into the plugin
// tarball as schema/schema.json, so the plugin's GetSchema answers the URL its
// SDKs name, not the default.
import * as fs from "node:fs";
import * as path from "node:path";

/** schema/schema.json's pluginDownloadURL under `root`, or undefined when it has none. */
export function bakedDownloadUrl(root: string): string | undefined {
  const file = path.join(root, "schema", "schema.json");
  if (!fs.existsSync(file)) return undefined;
  const url = (JSON.parse(fs.readFileSync(file, "utf8")) as { pluginDownloadURL?: unknown }).pluginDownloadURL;
  return typeof url === "string" && url !== "" ? url : undefined;
}
