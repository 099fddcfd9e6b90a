import type { Redis } from "../core/redis";

/**
 * Audio waiting for its transcription job lives in Redis under the deployment's prefix, not in the
 * job payload (BullMQ copies payloads into events and keeps them with finished jobs) and not on
 * local disk (API and workers may run on different machines; Redis is what they share).
 * The expiry outlives the request's wait; the request deletes the audio as soon as it is done.
 */
export function audioKey(prefix: string, audioId: string): string {
  return `${prefix}:stt:${audioId}`;
}

export async function storeAudio(redis: Redis, key: string, bytes: Uint8Array, ttlMs: number): Promise<void> {
  await redis.set(key, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), "PX", ttlMs);
}

export async function loadAudio(redis: Redis, key: string): Promise<Uint8Array | null> {
  return redis.getBuffer(key);
}

export async function deleteAudio(redis: Redis, key: string): Promise<void> {
  await redis.del(key);
}
