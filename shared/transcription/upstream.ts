import { UnrecoverableError } from "bullmq";
import { fetchUpstream, UpstreamError, upstreamJson } from "../core/upstream";

export interface SttUpstream {
  /** Shown in errors and logs: "ElevenLabs", "Addis AI". */
  name: string;
  url: string;
  headers: Record<string, string>;
  timeoutMs: number;
}

/**
 * POSTs a multipart form and parses the JSON answer. Failures that may pass (network, timeout,
 * 408, 429, 5xx) throw `UpstreamError` so BullMQ retries the job; any other answer (a bad key, audio
 * the provider refuses, a wrong base URL) throws `UnrecoverableError`: repeating it cannot help.
 * Response bodies are never copied into errors: they may echo the transcript.
 */
export async function postForm<T>(upstream: SttUpstream, form: FormData): Promise<T> {
  const response = await fetchUpstream(upstream, upstream.url, {
    method: "POST",
    headers: { accept: "application/json", ...upstream.headers },
    body: form,
  });
  if (!response.ok) {
    await response.body?.cancel();
    const status = response.status;
    if (status === 408 || status === 429 || status >= 500) {
      throw new UpstreamError(upstream.name, `answered HTTP ${status}`);
    }
    const what = status === 401 || status === 403 ? "refused our API key" : "refused the request";
    throw new UnrecoverableError(`${upstream.name}: ${what} (HTTP ${status})`);
  }
  return upstreamJson<T>(upstream, response);
}
