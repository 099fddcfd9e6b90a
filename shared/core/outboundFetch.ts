import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { rootCertificates } from "node:tls";
import { addressAllowed, addressKind } from "./ipAddresses";

/**
 * A fetch for URLs that someone else chose (an OAuth client's metadata document, its jwks_uri): a
 * server-side request forgery would otherwise reach our own network. Only `https`; the host name is
 * resolved here and every address it resolves to must be public (loopback too when allowed), and
 * the connection goes to the address that was checked, with the host name kept for SNI, certificate
 * verification and `Host`, so a DNS answer that changes between the check and the connection
 * (rebinding) is never used. No redirects, no proxy, one time limit for the whole exchange (body
 * included) and a size cap on the body, which is read here in full.
 */
export interface OutboundPolicy {
  timeoutMs: number;
  maxBytes: number;
  allowLoopback: boolean;
  /** PEM certificates trusted besides the system's roots (never instead of verification). */
  extraCa?: string;
  /** Resolves a host name to its addresses; the system resolver (getaddrinfo) by default. */
  resolve?: (hostname: string) => Promise<string[]>;
}

/** A refused or failed outbound request; `message` says why and is safe to log. */
export class OutboundRefused extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "OutboundRefused";
  }
}

async function systemResolve(hostname: string): Promise<string[]> {
  const answers = await lookup(hostname, { all: true, verbatim: true });
  return answers.map((answer) => answer.address);
}

/** The addresses `url`'s host stands for, each of them allowed; throws otherwise. */
export async function checkedAddresses(url: URL, policy: OutboundPolicy): Promise<string[]> {
  if (url.protocol !== "https:") throw new OutboundRefused(`only https URLs are fetched, not ${url.protocol}`);
  if (url.username || url.password) throw new OutboundRefused("a URL with credentials is not fetched");
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = await (policy.resolve ?? systemResolve)(host);
    } catch (cause) {
      throw new OutboundRefused(`${host} does not resolve`, { cause });
    }
  }
  if (addresses.length === 0) throw new OutboundRefused(`${host} does not resolve`);
  // Every answer must pass: a resolver may hand out any of them, and a mixed answer is a sign of abuse.
  for (const address of addresses) {
    if (!addressAllowed(address, policy)) {
      throw new OutboundRefused(`${host} resolves to ${address}, a ${addressKind(address)} address`);
    }
  }
  return addresses;
}

async function boundedBody(response: Response, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw new OutboundRefused(`the response is larger than ${maxBytes} bytes`);
  }
  const chunks: Uint8Array[] = [];
  let received = 0;
  for await (const chunk of response.body ?? []) {
    received += chunk.byteLength;
    if (received > maxBytes) {
      await response.body?.cancel();
      throw new OutboundRefused(`the response is larger than ${maxBytes} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * A `fetch` with the policy applied. The answer's body is already read (at most `maxBytes`); a
 * refusal, a timeout or a network failure is an `OutboundRefused`. A caller's signal still aborts.
 */
export function guardedFetch(policy: OutboundPolicy) {
  const ca = policy.extraCa ? [...rootCertificates, policy.extraCa] : undefined;
  return async (input: string | URL, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(input);
    const [address] = await checkedAddresses(url, policy);
    const target = new URL(url);
    target.hostname = address?.includes(":") ? `[${address}]` : (address ?? "");
    const headers = new Headers(init.headers);
    headers.set("host", url.host);
    const named = !isIP(url.hostname.replace(/^\[(.*)\]$/, "$1"));
    const timeout = AbortSignal.timeout(policy.timeoutMs);
    try {
      const response = await fetch(target, {
        ...init,
        headers,
        redirect: "manual",
        proxy: false,
        signal: init.signal ? AbortSignal.any([init.signal, timeout]) : timeout,
        tls: { ...(ca ? { ca } : {}), ...(named ? { serverName: url.hostname } : {}) },
      } as BunFetchRequestInit);
      const body = await boundedBody(response, policy.maxBytes);
      // The body is handed on decoded and whole: the upstream's encoding and length no longer apply.
      const answerHeaders = new Headers(response.headers);
      answerHeaders.delete("content-encoding");
      answerHeaders.set("content-length", String(body.byteLength));
      return new Response(body, { status: response.status, statusText: response.statusText, headers: answerHeaders });
    } catch (cause) {
      if (cause instanceof OutboundRefused) throw cause;
      const timedOut = timeout.aborted;
      throw new OutboundRefused(timedOut ? `no complete answer within ${policy.timeoutMs} ms` : "unreachable", {
        cause,
      });
    }
  };
}
