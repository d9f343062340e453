// An incremental body for the gloo-net test: /stream/incremental sends its first chunk at once
// and holds the rest until /stream/release is called. A client that only sees the body once it
// is complete therefore never reaches /stream/release, and the test times out instead of passing.
const waiting = new Map();

export const routes = {
  "/stream/incremental": (req, res, url) => {
    const id = url.searchParams.get("id") || "default";
    res.writeHead(200, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" });
    res.write("first chunk;");
    waiting.set(id, () => {
      res.write("second chunk;");
      res.end("last chunk");
    });
    req.on("close", () => waiting.delete(id));
    return true;
  },
  "/stream/release": (req, res, url) => {
    const id = url.searchParams.get("id") || "default";
    const release = waiting.get(id);
    waiting.delete(id);
    if (release) release();
    res.writeHead(release ? 200 : 409, { "content-type": "text/plain" }).end(release ? "released" : "nothing waiting");
    return true;
  },
  "/echo": async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    res.writeHead(200, { "content-type": "application/json", "x-echo-method": req.method });
    res.end(JSON.stringify({ method: req.method, headers: req.headers, body: Buffer.concat(chunks).toString("utf8") }));
    return true;
  },
};
