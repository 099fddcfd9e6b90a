import { BlockList, isIP } from "node:net";
import type { Env } from "../../shared/core/env";

/**
 * The client's address, for the throttles that count per address (sign-in, sign-up, OAuth client
 * registration). Without TRUSTED_PROXIES it is the socket's peer, and `X-Forwarded-For` is ignored
 * (anyone can send it). Behind a proxy listed there, it is the right-most address of
 * `X-Forwarded-For` that is not itself a trusted proxy: each proxy appends the peer it saw, so
 * what a client wrote itself stands further left and cannot be chosen.
 */
export type AddressOf = (request: Request, server: PeerSource | null) => string;

/** What the server knows of a request's socket (Bun's `server.requestIP`). */
export interface PeerSource {
  requestIP(request: Request): { address: string } | null;
}

function family(address: string): "ipv4" | "ipv6" | undefined {
  const version = isIP(address);
  return version === 4 ? "ipv4" : version === 6 ? "ipv6" : undefined;
}

/** `::ffff:10.0.0.1` (an IPv4 peer on a dual-stack socket) is 10.0.0.1. */
function plain(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped?.[1] ?? address;
}

/** Parses TRUSTED_PROXIES; an entry that is neither an address nor a CIDR range is an error at start. */
export function trustedProxies(list: string): BlockList {
  const proxies = new BlockList();
  for (const entry of list
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean)) {
    const [address = "", bits] = entry.split("/");
    const kind = family(address);
    if (!kind) throw new Error(`TRUSTED_PROXIES: "${entry}" is not an IP address or CIDR range`);
    if (bits === undefined) proxies.addAddress(address, kind);
    else proxies.addSubnet(address, Number(bits), kind);
  }
  return proxies;
}

export function clientAddressOf(env: Pick<Env, "TRUSTED_PROXIES">): AddressOf {
  const proxies = trustedProxies(env.TRUSTED_PROXIES);
  const trusted = (address: string) => {
    const kind = family(address);
    return kind !== undefined && proxies.check(address, kind);
  };
  const any = env.TRUSTED_PROXIES.trim() !== "";
  return (request, server) => {
    const peer = plain(server?.requestIP(request)?.address ?? "unknown");
    if (!any || !trusted(peer)) return peer;
    const forwarded = (request.headers.get("x-forwarded-for") ?? "")
      .split(",")
      .map((item) => plain(item.trim()))
      .filter(Boolean);
    for (let i = forwarded.length - 1; i >= 0; i--) {
      const hop = forwarded[i] as string;
      // Not an address: written by the client, not a proxy. The nearest vouched-for hop stands for it.
      if (!family(hop)) return forwarded[i + 1] ?? peer;
      if (!trusted(hop)) return hop;
    }
    return forwarded[0] ?? peer;
  };
}
