/**
 * A local stand-in for an S3-compatible bucket (path-style `/<bucket>/<key>`), enough for the
 * upload storage: PUT, GET, HEAD and DELETE of objects, with S3's documented status codes and
 * headers. It does not check signatures (the presigned URL's SigV4 query is what Bun's S3 client
 * wrote); it records each request so tests can see what was sent.
 */
export interface FakeS3 {
  endpoint: string;
  objects: Map<string, { bytes: Uint8Array; contentType: string }>;
  requests: { method: string; path: string; query: URLSearchParams }[];
  stop(): Promise<void>;
}

/** The upload storage settings that point the service at this stand-in's bucket. */
export function s3Env(s3: FakeS3) {
  return {
    S3_BUCKET: "health-uploads",
    S3_ENDPOINT: s3.endpoint,
    S3_REGION: "us-east-1",
    S3_ACCESS_KEY_ID: "test-access-key",
    S3_SECRET_ACCESS_KEY: "test-secret-key",
  };
}

export function startFakeS3(): FakeS3 {
  const objects = new Map<string, { bytes: Uint8Array; contentType: string }>();
  const requests: FakeS3["requests"] = [];
  const notFound = () =>
    new Response(
      '<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>',
      {
        status: 404,
        headers: { "content-type": "application/xml" },
      },
    );
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const url = new URL(request.url);
      const path = decodeURIComponent(url.pathname);
      requests.push({ method: request.method, path, query: url.searchParams });
      const object = objects.get(path);
      switch (request.method) {
        case "PUT": {
          const bytes = new Uint8Array(await request.arrayBuffer());
          objects.set(path, { bytes, contentType: request.headers.get("content-type") ?? "application/octet-stream" });
          return new Response(null, { status: 200, headers: { etag: `"${Bun.hash(bytes).toString(16)}"` } });
        }
        case "GET":
          return object
            ? new Response(object.bytes, {
                headers: { "content-type": object.contentType, "content-length": String(object.bytes.length) },
              })
            : notFound();
        case "HEAD":
          return object
            ? new Response(null, {
                headers: {
                  "content-type": object.contentType,
                  "content-length": String(object.bytes.length),
                  etag: `"${Bun.hash(object.bytes).toString(16)}"`,
                  "last-modified": new Date().toUTCString(),
                },
              })
            : new Response(null, { status: 404 });
        case "DELETE":
          objects.delete(path);
          return new Response(null, { status: 204 });
        default:
          return new Response(null, { status: 405 });
      }
    },
  });
  return { endpoint: `http://127.0.0.1:${server.port}`, objects, requests, stop: () => server.stop(true) };
}
