import { Elysia } from "elysia";
import { createAuthenticator } from "../shared/auth/apiKeys";
import type { Deps } from "../shared/context/deps";
import { publicUrl } from "../shared/core/env";
import { registerFormats } from "../shared/core/formats";
import { mcpRoutes } from "./mcp/route";
import { lazyOAuthServer } from "./oauth/provider";
import { oauthRoutes } from "./oauth/routes";
import { tokenVerifier } from "./oauth/tokens";
import { admission } from "./plugins/admission";
import { corsPolicy } from "./plugins/cors";
import { errorHandler } from "./plugins/errors";
import { inputGuard } from "./plugins/inputGuard";
import { largeBodies } from "./plugins/largeBodies";
import { refuseUndocumentedMedia } from "./plugins/mediaTypes";
import { requestContext } from "./plugins/requestContext";
import { httpMetrics } from "./plugins/requestMetrics";
import { createRouteTable } from "./plugins/routeTable";
import { accountRoutes } from "./routes/account";
import { chatsRoutes } from "./routes/chats";
import { discoveryRoutes } from "./routes/discovery";
import { chatRoutes } from "./routes/health/chat";
import { conditionRoutes } from "./routes/health/conditions";
import { healthDataRoutes } from "./routes/health/dataRoutes";
import { medicationRoutes } from "./routes/health/medication";
import { metricsRoutes } from "./routes/metrics";
import { modelsRoutes } from "./routes/models";
import { openApiRoutes } from "./routes/openapi";
import { paperRoutes } from "./routes/papers";
import { systemRoutes } from "./routes/system";
import { transcribeRoutes } from "./routes/transcribe";
import { uploadRoutes } from "./routes/uploads";
import { websiteAuthRoutes } from "./routes/website/auth";
import { websiteDashboardRoutes } from "./routes/website/dashboard";
import { websiteMirrorRoutes } from "./routes/website/mirrors";
import { webRoutes } from "./web/plugin";

/** The whole HTTP API as one Elysia app. Tests drive it in-process with `app.handle(request)`. */
export function createApp(deps: Deps) {
  registerFormats();
  const authenticator = createAuthenticator({
    sql: deps.sql,
    redis: deps.redis,
    redisPrefix: deps.env.REDIS_PREFIX,
    plans: deps.plans,
    authEvents: deps.authEvents,
  });
  // Filled once the app is assembled: what is decided without a matched route (405 Allow, metrics labels).
  const routes = createRouteTable();
  // The OAuth authorization server starts on first use (an app that never sees OAuth never starts it).
  const oauth = lazyOAuthServer(deps);
  const app = new Elysia({ normalize: false })
    .use(httpMetrics(routes))
    .use(errorHandler(deps.log, routes))
    .use(requestContext(deps.log, { https: publicUrl(deps.env).startsWith("https://") }))
    .use(largeBodies())
    .use(corsPolicy())
    // After CORS, so a page can read its 414 or 431.
    .use(inputGuard())
    .use(admission(deps, authenticator, tokenVerifier(oauth)))
    .use(openApiRoutes(deps, routes.all))
    .use(systemRoutes(deps))
    .use(metricsRoutes(deps))
    .use(accountRoutes(deps))
    .use(paperRoutes(deps))
    .use(healthDataRoutes(deps))
    .use(conditionRoutes(deps))
    .use(medicationRoutes(deps))
    .use(chatRoutes(deps))
    .use(modelsRoutes(deps))
    .use(chatsRoutes(deps))
    .use(transcribeRoutes(deps))
    .use(uploadRoutes(deps))
    .use(discoveryRoutes(deps))
    .use(mcpRoutes(deps))
    .use(oauthRoutes(deps, oauth))
    .use(websiteAuthRoutes(deps, oauth))
    .use(websiteDashboardRoutes(deps))
    .use(websiteMirrorRoutes(deps))
    .use(webRoutes());
  // A request hook runs in the order hooks were added, routes or not: this one after admission's.
  // Added apart from the chain, whose type is as deep as TypeScript follows.
  app.onRequest(refuseUndocumentedMedia(routes));
  routes.load(app.routes);
  return app;
}

export type App = ReturnType<typeof createApp>;
