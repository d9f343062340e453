import { requestUrl } from "obsidian";

/** A request as the core's `JsRequestClient` sends it (src/wasm/request_client.rs). */
export interface CoreRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: Uint8Array;
}

export interface CoreResponse {
  status: number;
  headers: Record<string, string>;
  body: ArrayBuffer;
}

/**
 * The core's non-streaming transport: Obsidian's `requestUrl`, which is not bound by CORS and
 * works on mobile. The whole answer arrives at once; an error status is an answer, not a throw.
 */
export async function requestWithObsidian(request: CoreRequest): Promise<CoreResponse> {
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
