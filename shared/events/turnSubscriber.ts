import { createRedis, type Redis, type RedisTarget, redisKeys } from "../core/redis";
import { decodeTurnEvent, type TurnEvent } from "./turnLog";

/**
 * One subscriber connection per API process, shared by every feed: a channel is subscribed while
 * at least one feed needs it (a connection per client would cost a Redis connection per open stream).
 */
export interface TurnSubscriber {
  /** Resolves once Redis confirmed the subscription, with the unsubscribe. */
  listen(turnId: string, onEvent: (event: TurnEvent) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

type Channel = { listeners: Set<(event: TurnEvent) => void>; subscribed: Promise<unknown> };

export function createTurnSubscriber(target: RedisTarget, prefix: string): TurnSubscriber {
  const keys = redisKeys(prefix);
  const channels = new Map<string, Channel>();
  let connection: Redis | undefined;
  const connect = (): Redis => {
    if (connection) return connection;
    connection = createRedis(target, "worker");
    connection.on("smessage", (name: string, message: string) => {
      const channel = channels.get(name);
      if (!channel) return;
      const event = decodeTurnEvent(message);
      for (const listener of channel.listeners) listener(event);
    });
    return connection;
  };
  const unlisten = async (name: string, listener: (event: TurnEvent) => void) => {
    const channel = channels.get(name);
    channel?.listeners.delete(listener);
    if (channel?.listeners.size !== 0) return;
    channels.delete(name);
    await connection?.sunsubscribe(name).catch(() => {});
  };
  return {
    async listen(turnId, onEvent) {
      const name = keys.turnChannel(turnId);
      let channel = channels.get(name);
      if (!channel) {
        channel = { listeners: new Set(), subscribed: connect().ssubscribe(name) };
        channels.set(name, channel);
      }
      channel.listeners.add(onEvent);
      try {
        await channel.subscribed;
      } catch (error) {
        // Not kept: the next listener (a client reconnecting) subscribes afresh.
        await unlisten(name, onEvent);
        throw error;
      }
      return () => unlisten(name, onEvent);
    },
    async close() {
      channels.clear();
      connection?.disconnect();
      connection = undefined;
    },
  };
}
