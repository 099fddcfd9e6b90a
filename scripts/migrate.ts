/** `bun run db:migrate`: creates the database when missing and applies pending migrations. */
import { migrate } from "../shared/db/migrate";
import { createSql, ensureDatabase } from "../shared/db/sql";
import { databaseUrl, loadEnv } from "../shared/env";

const url = databaseUrl(loadEnv());
await ensureDatabase(url);
const sql = createSql(url, { max: 1 });
const applied = await migrate(sql).finally(() => sql.end({ timeout: 5 }));
console.log(JSON.stringify({ applied }));
