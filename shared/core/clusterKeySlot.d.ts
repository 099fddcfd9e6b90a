/** cluster-key-slot (ioredis's own dependency) ships no types: the hash slot (0–16383) of a key, hash tags honoured. */
declare module "cluster-key-slot" {
  export default function calculateSlot(key: string): number;
}
