import { type Static, Type as T } from "@sinclair/typebox";
import { PlanIdSchema } from "../../core/plans";
import { Text } from "../../core/text";

/** A chat turn as the queue carries it: ids only, no message text, no secrets. */
export const ChatTurnSchema = T.Object(
  {
    chatId: T.String({ format: "uuid" }),
    accountId: T.String({ format: "uuid" }),
    plan: PlanIdSchema,
    /** The user message this turn answers; also the turn's id. */
    turnId: Text({ minLength: 1, maxLength: 64 }),
    modelId: Text({ minLength: 1, maxLength: 100 }),
    /** An OAuth caller's scopes, which the turn's tools keep to; absent (a key, the website): all. */
    scopes: T.Optional(T.Array(Text({ minLength: 1, maxLength: 32 }), { maxItems: 16 })),
  },
  { additionalProperties: false },
);
export type ChatTurn = Static<typeof ChatTurnSchema>;
