import { createHash } from "node:crypto";
import type { Db } from "../../db/sql";
import * as repo from "./repository";

/**
 * oidc-provider's storage adapter over PostgreSQL (one adapter instance per model kind). Bearer
 * values are looked up by their SHA-256: a token's id is the token itself, so it is hashed before
 * it is stored and its `jti` is left out of the stored payload, then put back when it is found.
 */
type Payload = Record<string, unknown>;

/** Kinds whose ids grant nothing by themselves, kept as they are (the dashboard lists grants). */
const PLAIN_ID_KINDS = new Set(["Client", "Grant"]);
/**
 * Kinds whose id is a credential a client presents: stored without it. The rest (sessions,
 * interactions) keep their `jti` in the payload, since they are also found by `uid`.
 */
const BEARER_KINDS = new Set([
  "AccessToken",
  "RefreshToken",
  "AuthorizationCode",
  "ClientCredentials",
  "DeviceCode",
  "BackchannelAuthenticationRequest",
  "RegistrationAccessToken",
  "PushedAuthorizationRequest",
]);

function storedId(kind: string, id: string): string {
  return PLAIN_ID_KINDS.has(kind) ? id : createHash("sha256").update(id).digest("base64url");
}

function text(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

/** A UUID account id (the website's accounts); anything else is not tied to an account. */
function accountOf(payload: Payload): string | null {
  const id = text(payload.accountId);
  return id && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id) ? id : null;
}

export function createOAuthAdapter(sql: Db) {
  return class PostgresOAuthAdapter {
    readonly kind: string;

    constructor(kind: string) {
      this.kind = kind;
    }

    async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
      const stored = BEARER_KINDS.has(this.kind) ? { ...payload, jti: undefined } : payload;
      await repo.upsertOAuthRecord(sql, {
        kind: this.kind,
        id: storedId(this.kind, id),
        payload: JSON.parse(JSON.stringify(stored)) as Payload,
        grantId: text(payload.grantId),
        uid: text(payload.uid),
        userCode: text(payload.userCode),
        accountId: accountOf(payload),
        expiresAt: expiresIn ? new Date(Date.now() + expiresIn * 1000) : null,
      });
    }

    async find(id: string): Promise<Payload | undefined> {
      return this.restore(id, await repo.findOAuthRecord(sql, this.kind, storedId(this.kind, id)));
    }

    async findByUid(uid: string): Promise<Payload | undefined> {
      const row = await repo.findOAuthRecordBy(sql, this.kind, "uid", uid);
      return row ? this.restore(undefined, row) : undefined;
    }

    async findByUserCode(userCode: string): Promise<Payload | undefined> {
      const row = await repo.findOAuthRecordBy(sql, this.kind, "user_code", userCode);
      return row ? this.restore(undefined, row) : undefined;
    }

    async consume(id: string): Promise<void> {
      await repo.consumeOAuthRecord(sql, this.kind, storedId(this.kind, id));
    }

    async destroy(id: string): Promise<void> {
      await repo.deleteOAuthRecord(sql, this.kind, storedId(this.kind, id));
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await repo.deleteOAuthGrantRecords(sql, grantId);
    }

    private restore(id: string | undefined, row: repo.OAuthRecordRow | undefined): Payload | undefined {
      if (!row) return undefined;
      const payload: Payload = { ...row.payload };
      if (id !== undefined && BEARER_KINDS.has(this.kind)) payload.jti = id;
      if (row.consumedAt) payload.consumed = Math.floor(row.consumedAt.getTime() / 1000);
      return payload;
    }
  };
}
