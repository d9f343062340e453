import { requestUrl } from "obsidian";

import type { HttpAnswer, HttpRequest } from "./protocol";

/**
 * The core's non-streaming transport: Obsidian's `requestUrl`, which is not bound by CORS and
 * works on mobile. The whole answer arrives at once; an error status is an answer, not a throw.
 */
export async function requestWithObsidian(request: HttpRequest): Promise<HttpAnswer> {
  const body = request.body
    ? (request.body.buffer.slice(request.body.byteOffset, request.body.byteOffset + request.body.byteLength) as ArrayBuffer)
    : undefined;
  const response = await requestUrl({
    url: request.url,
    method: request.method,
    headers: request.headers,
    body,
    throw: false,
  });
  return { status: response.status, headers: response.headers, body: response.arrayBuffer };
}
