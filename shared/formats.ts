import { FormatRegistry } from "@sinclair/typebox";

/**
 * TypeBox string formats used by our schemas. Elysia registers its own when it loads, but a
 * worker validating with TypeBox alone would throw "Unknown format", so both sides import this.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

const formats: Record<string, (value: string) => boolean> = {
  uuid: (value) => UUID.test(value),
  email: (value) => EMAIL.test(value),
  "date-time": (value) => DATE_TIME.test(value) && !Number.isNaN(Date.parse(value)),
};

for (const [name, check] of Object.entries(formats)) {
  if (!FormatRegistry.Has(name)) FormatRegistry.Set(name, check);
}
