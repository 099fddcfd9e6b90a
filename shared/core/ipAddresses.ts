import { isIP } from "node:net";

/**
 * What kind of address an outbound request would reach, so a fetch made on someone else's say-so
 * (an OAuth client's metadata URL) goes to the public internet only. Written out rather than taken
 * from a block list so the IPv6 forms that carry an IPv4 address (mapped, NAT64) are judged by
 * that IPv4 address, and anything outside IPv6 global unicast (2000::/3) counts as reserved.
 */
export type AddressKind =
  | "public"
  | "loopback"
  | "private"
  | "link-local"
  | "unique-local"
  | "multicast"
  | "unspecified"
  | "reserved";

type Range4 = [base: number, bits: number, kind: AddressKind];

const ip4 = (a: number, b: number, c: number, d: number) => ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;

/** IANA's IPv4 special-purpose registry, the parts that are not globally reachable, and multicast. */
const RANGES_4: Range4[] = [
  [ip4(0, 0, 0, 0), 8, "unspecified"],
  [ip4(10, 0, 0, 0), 8, "private"],
  [ip4(100, 64, 0, 0), 10, "private"], // carrier-grade NAT (RFC 6598)
  [ip4(127, 0, 0, 0), 8, "loopback"],
  [ip4(169, 254, 0, 0), 16, "link-local"],
  [ip4(172, 16, 0, 0), 12, "private"],
  [ip4(192, 0, 0, 0), 24, "reserved"], // IETF protocol assignments
  [ip4(192, 0, 2, 0), 24, "reserved"], // documentation
  [ip4(192, 88, 99, 0), 24, "reserved"], // 6to4 relay anycast (deprecated)
  [ip4(192, 168, 0, 0), 16, "private"],
  [ip4(198, 18, 0, 0), 15, "reserved"], // benchmarking
  [ip4(198, 51, 100, 0), 24, "reserved"], // documentation
  [ip4(203, 0, 113, 0), 24, "reserved"], // documentation
  [ip4(224, 0, 0, 0), 4, "multicast"],
  [ip4(240, 0, 0, 0), 4, "reserved"], // future use and the broadcast address
];

function parseIPv4(text: string): number | undefined {
  const parts = text.split(".");
  if (parts.length !== 4 || parts.some((part) => !/^\d{1,3}$/.test(part) || Number(part) > 255)) return undefined;
  const [a, b, c, d] = parts.map(Number) as [number, number, number, number];
  return ip4(a, b, c, d);
}

function kindOfIPv4(value: number): AddressKind {
  for (const [base, bits, kind] of RANGES_4) {
    const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
    if ((value & mask) >>> 0 === base) return kind;
  }
  return "public";
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part is two groups). */
function parseIPv6(text: string): number[] | undefined {
  let head = text;
  const tail: number[] = [];
  const lastColon = head.lastIndexOf(":");
  if (head.slice(lastColon + 1).includes(".")) {
    const v4 = parseIPv4(head.slice(lastColon + 1));
    if (v4 === undefined) return undefined;
    tail.push(v4 >>> 16, v4 & 0xffff);
    head = `${head.slice(0, lastColon + 1)}0`; // a placeholder group, dropped below
  }
  const halves = head.split("::");
  if (halves.length > 2) return undefined;
  const groups = (half: string | undefined) => (half ? half.split(":").map((g) => Number.parseInt(g, 16)) : []);
  const left = groups(halves[0]);
  const right = groups(halves[1]);
  if (tail.length > 0) (halves.length === 2 ? right : left).pop();
  const missing = 8 - left.length - right.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 0) return undefined;
  const all = [...left, ...new Array<number>(missing).fill(0), ...right, ...tail];
  return all.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? all : undefined;
}

function kindOfIPv6(g: number[]): AddressKind {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const firstSix = [g0, g1, g2, g3, g4, g5];
  const embedded = () => kindOfIPv4(((g6 << 16) | g7) >>> 0);
  if (firstSix.every((x) => x === 0) && g6 === 0 && g7 <= 1) return g7 === 0 ? "unspecified" : "loopback";
  // ::ffff:a.b.c.d (IPv4-mapped) and 64:ff9b::a.b.c.d (NAT64) reach that IPv4 address.
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0xffff) return embedded();
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return embedded();
  if (g0 >= 0xff00) return "multicast";
  if ((g0 & 0xffc0) === 0xfe80) return "link-local";
  if ((g0 & 0xffc0) === 0xfec0) return "private"; // site-local (deprecated)
  if ((g0 & 0xfe00) === 0xfc00) return "unique-local";
  if ((g0 & 0xe000) !== 0x2000) return "reserved"; // outside global unicast: IPv4-compatible, discard, …
  // Inside 2000::/3, the blocks that are not globally reachable or hide another address.
  if (g0 === 0x2001 && g1 < 0x0200) return "reserved"; // IETF protocol assignments, Teredo
  if (g0 === 0x2001 && g1 === 0x0db8) return "reserved"; // documentation
  if (g0 === 0x2002) return "reserved"; // 6to4 (deprecated, RFC 7526)
  if (g0 === 0x3fff && g1 < 0x1000) return "reserved"; // documentation (RFC 9637)
  return "public";
}

/** The kind of an IP address in text form (IPv4 dotted quad or IPv6, optionally in brackets). */
export function addressKind(address: string): AddressKind {
  const bare = address.replace(/^\[(.*)\]$/, "$1");
  const family = isIP(bare.split("%")[0] ?? "");
  if (family === 4) return kindOfIPv4(parseIPv4(bare) ?? 0);
  if (family === 6) {
    // A zone (fe80::1%eth0) only ever names a link-local interface.
    if (bare.includes("%")) return "link-local";
    const groups = parseIPv6(bare.toLowerCase());
    return groups ? kindOfIPv6(groups) : "reserved";
  }
  throw new TypeError(`not an IP address: ${address}`);
}

/** Whether an outbound request may go to this address: public ones, and loopback when allowed. */
export function addressAllowed(address: string, options: { allowLoopback: boolean }): boolean {
  const kind = addressKind(address);
  return kind === "public" || (kind === "loopback" && options.allowLoopback);
}
