// What the page's modules find in a browser and Node has not: the page's own files over fetch (a
// relative URL, as the page asks for client-actions.schema.json and config.json), read from web/.
import { readFile } from "node:fs/promises";

const WEB = new URL("../../web/", import.meta.url);

/**
 * Answers the page's relative requests with its committed files (404 for a file web/ has not), as the
 * local server and the bucket serve them; ``extra`` adds files by name (a config.json).
 */
export function serveWeb(extra = {}) {
  const original = globalThis.fetch;
  globalThis.fetch = async (url) => {
    const name = String(url);
    if (name in extra) return Response.json(extra[name]);
    try {
      return new Response(await readFile(new URL(name, WEB)), { headers: { "Content-Type": "application/json" } });
    } catch {
      return new Response("Not found", { status: 404 });
    }
  };
  return () => {
    globalThis.fetch = original;
  };
}
