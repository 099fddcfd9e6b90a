import type { Env } from "../../shared/core/env";
import { publicUrl } from "../../shared/core/env";
import { TOOLS } from "../../shared/toolCatalog";
import { PROTOCOL_VERSIONS } from "./protocol";
import { SERVER_INFO } from "./server";

/** The MCP server card (spec 4.7): how a client finds and connects to the endpoint. */
export function serverCard(env: Env) {
  const base = publicUrl(env);
  return {
    name: SERVER_INFO.name,
    version: SERVER_INFO.version,
    title: "Papers & Health",
    description: `Academic paper search (arXiv metadata), health profile, symptom logs and lab results, medication and condition references, and a health assistant (health_chat): ${TOOLS.length} tools over stateless streamable HTTP.`,
    websiteUrl: base,
    remotes: [
      {
        type: "streamable-http",
        url: `${base}/api/mcp`,
        supportedProtocolVersions: [...PROTOCOL_VERSIONS],
        headers: [
          {
            name: "Authorization",
            description:
              "Bearer <API key> (x-api-key: <API key> is accepted too), or Bearer <OAuth access token>: OAuth clients find the authorization server at /.well-known/oauth-protected-resource/api/mcp.",
            isRequired: true,
            isSecret: true,
          },
        ],
      },
    ],
  };
}
