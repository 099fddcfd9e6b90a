import type { Sql } from "../../shared/db/sql";
import { call, json, type TestApp } from "./http";

/**
 * For the isolation test: where routes and MCP tools take ids (path parameters, and id-like query
 * and body properties, from the OpenAPI document and Elysia's route table), and a snapshot of
 * everything one account has stored.
 */

/** Names that hold an id of something an account owns (or a cursor built from one). */
export const ID_LIKE = /^(id|ids|cursor)$|Ids?$|_ids?$/;

export type JsonSchema = { properties?: Record<string, JsonSchema>; items?: JsonSchema; anyOf?: JsonSchema[] };

interface OpenApiOperation {
  parameters?: { name: string; in: string }[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}
type OpenApiDoc = { paths: Record<string, Record<string, OpenApiOperation>> };

/** Id-like property names anywhere in a schema, nested ones as `outer.inner` or `list[].inner`. */
export function idProperties(schema: JsonSchema | undefined, prefix = ""): string[] {
  if (!schema) return [];
  const found: string[] = [];
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    if (ID_LIKE.test(name)) found.push(`${prefix}${name}`);
    found.push(...idProperties(property, `${prefix}${name}.`));
  }
  if (schema.items) found.push(...idProperties(schema.items, prefix.replace(/\.$/, "[].")));
  for (const option of schema.anyOf ?? []) found.push(...idProperties(option, prefix));
  return [...new Set(found)];
}

/** The property paths a value fills, named as idProperties names them. */
export function pathsOf(value: unknown, prefix = ""): string[] {
  if (Array.isArray(value)) return value.flatMap((item) => pathsOf(item, prefix.replace(/\.$/, "[].")));
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([name, inner]) => [`${prefix}${name}`, ...pathsOf(inner, `${prefix}${name}.`)]);
}

/** Every operation of the document with the names of the id-carrying inputs it takes. */
function idInputs(doc: OpenApiDoc): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const names = new Set<string>();
      for (const match of path.matchAll(/\{(\w+)\}/g)) names.add(match[1] as string);
      if (path.includes("*")) names.add("*");
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in === "query" && ID_LIKE.test(parameter.name)) names.add(parameter.name);
      }
      for (const media of Object.values(operation.requestBody?.content ?? {})) {
        for (const name of idProperties(media.schema)) names.add(name);
      }
      if (names.size > 0) found.set(`${method.toUpperCase()} ${path}`, [...names]);
    }
  }
  return found;
}

/**
 * Every operation that takes an id, as `METHOD /path/{param}` → its id inputs, from the OpenAPI
 * document: path parameters, id-like query and body properties.
 */
export async function requiredOps(app: TestApp): Promise<Map<string, string[]>> {
  // The document lists every served route (the document test checks it), so it is the whole list.
  return idInputs(await json<OpenApiDoc>(await call(app, "/openapi.json")));
}

/** Tables that hold no account's data; each says why. */
const GLOBAL_TABLES: Record<string, string> = {
  schema_migrations: "migration bookkeeping",
  papers: "the public paper catalog",
  reference_cache: "cached public RxNav/openFDA answers, keyed by query",
  conditions: "the public MONDO terms",
  oauth_server_keys: "the authorization server's signing and cookie keys, one row for the service",
};

/**
 * Every row one account has stored, as text: rows of tables with its `account_id`, and rows of
 * tables linked by a foreign key to one of those. A table that is neither, nor listed as global,
 * is an error (it would escape the comparison).
 */
export async function snapshotOf(sql: Sql, accountId: string): Promise<string> {
  const tables = await sql<{ name: string }[]>`
    select table_name as name from information_schema.tables
    where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`;
  const columns = await sql<{ table: string; column: string }[]>`
    select table_name as table, column_name as column from information_schema.columns where table_schema = 'public'`;
  const hasColumn = (table: string, column: string) => columns.some((c) => c.table === table && c.column === column);
  const links = await sql<{ child: string; column: string; parent: string }[]>`
    select tc.table_name as child, kcu.column_name as column, ccu.table_name as parent
    from information_schema.table_constraints tc
    join information_schema.key_column_usage kcu on kcu.constraint_name = tc.constraint_name
    join information_schema.constraint_column_usage ccu on ccu.constraint_name = tc.constraint_name
    where tc.constraint_type = 'FOREIGN KEY' and tc.table_schema = 'public'`;
  const parts: string[] = [];
  for (const { name: table } of tables) {
    let rows: readonly { row: unknown }[];
    if (table === "accounts") {
      rows = await sql<{ row: unknown }[]>`select to_jsonb(t) as row from accounts t where id = ${accountId}`;
    } else if (hasColumn(table, "account_id")) {
      rows = await sql<{ row: unknown }[]>`
        select to_jsonb(t) as row from ${sql(table)} t where account_id = ${accountId} order by to_jsonb(t)::text`;
    } else {
      const link = links.find((l) => l.child === table && hasColumn(l.parent, "account_id"));
      if (!link) {
        if (GLOBAL_TABLES[table]) continue;
        throw new Error(`Table ${table} has no account_id nor a link to a table with one: list it in GLOBAL_TABLES`);
      }
      rows = await sql<{ row: unknown }[]>`
        select to_jsonb(t) as row from ${sql(table)} t
        where ${sql(link.column)} in (select id from ${sql(link.parent)} where account_id = ${accountId})
        order by to_jsonb(t)::text`;
    }
    parts.push(`${table}: ${rows.map((r) => JSON.stringify(r.row)).join("\n")}`);
  }
  return parts.join("\n\n");
}
