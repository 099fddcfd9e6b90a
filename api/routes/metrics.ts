import { Elysia } from "elysia";
import type { Deps } from "../../shared/context/deps";
import { authorizeScrape, exposeMetrics } from "../../shared/metrics/exposition";
import { EXPOSITION_CONTENT_TYPE } from "../../shared/metrics/registry";
import { failures } from "../openapi/declare";
import { response } from "../openapi/media";

/** GET /metrics for Prometheus; who may read it is decided in shared/metrics/exposition.ts. */
export function metricsRoutes(deps: Pick<Deps, "env" | "redis" | "queues" | "log">) {
  return new Elysia({ name: "routes/metrics" }).get(
    "/metrics",
    async ({ request, server, set }) => {
      authorizeScrape(deps.env.METRICS_TOKEN, {
        authorization: request.headers.get("authorization"),
        peerAddress: server?.requestIP(request)?.address,
        forwarded: request.headers.has("forwarded") || request.headers.has("x-forwarded-for"),
      });
      const text = await exposeMetrics(deps);
      set.headers["content-type"] = EXPOSITION_CONTENT_TYPE;
      return text;
    },
    {
      detail: failures(
        {
          tags: ["System"],
          summary: "Prometheus metrics: requests, latency, queues, jobs, chat streams, rate limits",
          description:
            "Text exposition format 0.0.4. With METRICS_TOKEN set: `Authorization: Bearer <token>` (401 otherwise). Without: direct loopback clients only (403 otherwise, also for requests relayed by a proxy). The metrics are listed in the README (Background jobs → Metrics).",
          responses: { 200: response("The metrics.", { "text/plain": { schema: { type: "string" } } }) },
        },
        "UNAUTHORIZED",
        "FORBIDDEN",
      ),
    },
  );
}
