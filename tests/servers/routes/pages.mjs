// Web pages for the agent's web_fetch: /pages/<name> answers a small HTML page.
const PAGES = {
  recipe:
    "<!doctype html><html><head><title>Sourdough</title><script>track()</script></head><body>" +
    "<h1>Sourdough</h1><p>Bake at <strong>250 °C</strong> for 40 minutes.</p><ul><li>flour</li><li>water</li></ul>" +
    "</body></html>",
};

export const routes = {
  "/pages/": (req, res, url) => {
    const page = PAGES[url.pathname.slice("/pages/".length)];
    if (!page) return false;
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page);
    return true;
  },
};
