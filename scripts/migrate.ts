/** `bun run db:migrate`: creates the database when missing and applies pending migrations. */

import { databaseUrl, loadEnv } from "../shared/core/env";
import { migrate } from "../shared/db/migrate";
import { createSql, ensureDatabase } from "../shared/db/sql";

const url = databaseUrl(loadEnv());
await ensureDatabase(url);
const sql = createSql(url, { max: 1 });
const applied = await migrate(sql).finally(() => sql.end({ timeout: 5 }));
console.log(JSON.stringify({ applied }));
