import { describe, expect, test } from "bun:test";
import { redirectUriProblem, registrationRefusal } from "../../api/oauth/registrationPolicy";
import { clientAddressOf } from "../../api/plugins/clientAddress";
import { sameSiteDestination, signInLocation } from "../../api/web/client/destination";

const ORIGIN = "https://papers.example";

describe("after sign-in the browser stays on this site", () => {
  test("same-origin paths are followed, with their query and fragment", () => {
    expect(sameSiteDestination("/health/labs?tab=2#top", ORIGIN)).toBe("/health/labs?tab=2#top");
    expect(sameSiteDestination("/oauth/interaction/abc", ORIGIN)).toBe("/oauth/interaction/abc");
  });

  test.each([
    ["protocol-relative", "//evil.example/phish"],
    ["backslash (browsers read /\\ as //)", "/\\evil.example/phish"],
    ["backslash decoded from %5C", decodeURIComponent("%2F%5Cevil.example%2Fphish")],
    ["tab before the second slash", "/\t/evil.example"],
    ["newline before the second slash", "/\n/evil.example"],
    ["javascript:", "javascript:alert(document.cookie)"],
    ["absolute URL of another site", "https://evil.example/"],
    ["absolute URL of this site's scheme on another host", "https:evil.example"],
    ["data:", "data:text/html,<script>alert(1)</script>"],
    ["empty", ""],
  ])("%s goes to the dashboard instead", (_name, next) => {
    expect(sameSiteDestination(next, ORIGIN)).toBe("/dashboard");
  });

  test("an encoded backslash that stays encoded is a path on this site, not another host", () => {
    expect(new URL(sameSiteDestination("/%5Cevil.example", ORIGIN), ORIGIN).origin).toBe(ORIGIN);
  });

  test("the server's sign-in redirects carry only same-site paths", () => {
    expect(signInLocation("/dashboard", ORIGIN)).toBe("/?next=%2Fdashboard");
    expect(signInLocation("//evil.example", ORIGIN)).toBe("/?next=%2Fdashboard");
  });
});

describe("client registration metadata", () => {
  test("https, loopback http and reverse-domain app schemes are redirect URIs; others are not", () => {
    for (const ok of [
      "https://claude.ai/api/mcp/auth_callback",
      "http://127.0.0.1:33418/callback",
      "http://localhost:6274/oauth/callback",
      "http://[::1]:8080/cb",
      "com.example.app:/oauth2redirect",
      "cursor://anysphere.cursor-retrieval/oauth/callback",
    ]) {
      expect(redirectUriProblem(ok), ok).toBeUndefined();
    }
    for (const bad of [
      "http://evil.example/cb",
      "http://127.0.0.1.evil.example/cb",
      "javascript:alert(1)",
      "data:text/html,x",
      "file:///etc/passwd",
      "myapp:/cb",
      "not a url",
    ]) {
      expect(redirectUriProblem(bad), bad).toBeString();
    }
  });

  test("size, name length and the number of redirect URIs are bounded", () => {
    const ok = { client_name: "Assistant", redirect_uris: ["https://a.example/cb"] };
    expect(registrationRefusal(JSON.stringify(ok), ok)).toBeUndefined();
    const longName = { ...ok, client_name: "x".repeat(201) };
    expect(registrationRefusal(JSON.stringify(longName), longName)?.error).toBe("invalid_client_metadata");
    // Characters, not UTF-16 units: 200 emoji are a valid name.
    const emoji = { ...ok, client_name: "😀".repeat(200) };
    expect(registrationRefusal(JSON.stringify(emoji), emoji)).toBeUndefined();
    const many = { ...ok, redirect_uris: Array.from({ length: 11 }, (_, i) => `https://a.example/${i}`) };
    expect(registrationRefusal(JSON.stringify(many), many)?.error).toBe("invalid_redirect_uri");
    const huge = JSON.stringify({ ...ok, padding: "y".repeat(1_900), more: ["z".repeat(15_000)] });
    expect(registrationRefusal(huge, JSON.parse(huge))?.error).toBe("invalid_client_metadata");
  });
});

describe("the client address behind a proxy", () => {
  const peer = (address: string) => ({ requestIP: () => ({ address }) });
  const request = (forwarded?: string) =>
    new Request("http://x/", { headers: forwarded ? { "x-forwarded-for": forwarded } : {} });

  test("without trusted proxies the socket's peer is the client and X-Forwarded-For is ignored", () => {
    const addressOf = clientAddressOf({ TRUSTED_PROXIES: "" });
    expect(addressOf(request("203.0.113.9"), peer("198.51.100.1"))).toBe("198.51.100.1");
  });

  test("behind a trusted proxy the right-most untrusted forwarded address is the client", () => {
    const addressOf = clientAddressOf({ TRUSTED_PROXIES: "10.0.0.0/8, 127.0.0.1" });
    expect(addressOf(request("203.0.113.9"), peer("127.0.0.1"))).toBe("203.0.113.9");
    // A client cannot choose its address by writing the header itself: the proxy appends the real one.
    expect(addressOf(request("1.2.3.4, 203.0.113.9, 10.1.2.3"), peer("10.0.0.5"))).toBe("203.0.113.9");
    expect(addressOf(request("203.0.113.9"), peer("::ffff:127.0.0.1"))).toBe("203.0.113.9");
    // A peer that is not a trusted proxy is the client, whatever it forwards.
    expect(addressOf(request("203.0.113.9"), peer("198.51.100.1"))).toBe("198.51.100.1");
    // Garbage in the header stands for the nearest vouched-for hop.
    expect(addressOf(request("garbage, 10.1.2.3"), peer("10.0.0.5"))).toBe("10.1.2.3");
  });

  test("a TRUSTED_PROXIES entry that is not an address is an error at start", () => {
    expect(() => clientAddressOf({ TRUSTED_PROXIES: "proxy.internal" })).toThrow(/TRUSTED_PROXIES/);
  });
});
