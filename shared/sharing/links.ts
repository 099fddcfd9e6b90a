import { createHash, randomBytes } from "node:crypto";
import type { Ctx } from "../context/ctx";
import { publicUrl } from "../core/env";
import { AppError } from "../core/errors";
import { isUuid } from "../core/formats";
import { fromPostgres as db } from "../core/unavailable";
import { requireConsent } from "../health/consent";
import {
  countOpenLinks,
  insertShareLink,
  listShareLinksByAccount,
  lockShareLinks,
  revokeShareLinkById,
} from "./repository";
import {
  type CreatedShareLink,
  type RevokedShareLink,
  SHARE_LIMITS,
  type ShareLinkInput,
  type ShareLinkList,
} from "./schemas";

type AccountCtx = Pick<Ctx, "sql" | "accountId" | "env">;

/** 32 random bytes, base64url: 43 characters of [A-Za-z0-9_-]. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export function isTokenShaped(token: string): boolean {
  return TOKEN_SHAPE.test(token);
}

/** What is stored of a token (hex): a link is found by it, and the token cannot be read back. */
export function tokenHash(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/**
 * A read-only link to the whole health record, working for `expiresInDays` (default 7). The token
 * is in this answer's `url` only. Needs consent; at most SHARE_LIMITS.openLinks links may be open
 * (neither revoked nor expired) at once, else 409.
 */
export async function createShareLink(ctx: AccountCtx, input: ShareLinkInput): Promise<CreatedShareLink> {
  const token = randomBytes(32).toString("base64url");
  const link = await db(
    ctx.sql.begin(async (tx) => {
      await requireConsent(
        tx,
        ctx.accountId,
        "Sharing the health record needs consent: save the profile with consentGiven: true first.",
      );
      await lockShareLinks(tx, ctx.accountId);
      if ((await countOpenLinks(tx, ctx.accountId)) >= SHARE_LIMITS.openLinks) {
        throw new AppError(
          "CONFLICT",
          `At most ${SHARE_LIMITS.openLinks} share links can be open at once; revoke one first (or wait until one expires).`,
        );
      }
      return insertShareLink(tx, {
        id: Bun.randomUUIDv7(),
        accountId: ctx.accountId,
        tokenSha256: tokenHash(token),
        label: input.label?.trim() || null,
        expiresInDays: input.expiresInDays ?? SHARE_LIMITS.defaultDays,
      });
    }),
  );
  return { ...link, revokedAt: null, opens: 0, lastOpenedAt: null, url: `${publicUrl(ctx.env)}/share/${token}` };
}

/** The caller's links, newest first, each with its status and opens; never a token. */
export async function listShareLinks(ctx: Pick<Ctx, "sql" | "accountId">): Promise<ShareLinkList> {
  return { links: await db(listShareLinksByAccount(ctx.sql, ctx.accountId)) };
}

/**
 * Revokes one of the caller's links: it answers 404 from then on. Revoking a revoked link again
 * answers the same (the first revocation time stays); another account's link, an unknown id or
 * one that is not a UUID is 404. Needs no consent.
 */
export async function revokeShareLink(
  ctx: Pick<Ctx, "sql" | "accountId">,
  input: { id: string },
): Promise<RevokedShareLink> {
  const revoked = isUuid(input.id) && (await db(revokeShareLinkById(ctx.sql, ctx.accountId, input.id)));
  if (!revoked) throw new AppError("NOT_FOUND", `No share link with id ${input.id}.`);
  return { revoked: true };
}
