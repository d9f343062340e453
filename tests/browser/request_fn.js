// A stand-in for Obsidian's requestUrl: the whole answer at once, never streamed, and not bound
// by CORS — here, it may reach a server that fetch cannot (requests for `unreachable` go to
// `server`).
let calls = 0;

export function newRequestFunction(unreachable, server) {
  return async (request) => {
    calls++;
    const url = request.url.startsWith(unreachable) ? server + request.url.slice(unreachable.length) : request.url;
    const response = await fetch(url, { method: request.method, headers: request.headers, body: request.body });
    const headers = {};
    response.headers.forEach((value, name) => (headers[name] = value));
    return { status: response.status, headers, body: await response.arrayBuffer() };
  };
}

export function requestCalls() {
  return calls;
}
