import { FormatRegistry } from "@sinclair/typebox";

/**
 * TypeBox string formats used by our schemas, as plain regular expressions. A worker validating
 * with TypeBox alone would otherwise throw "Unknown format". Plain expressions also keep checks
 * cheap: a validator that builds a schema on every call can cost more than the request itself.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

const formats: Record<string, (value: string) => boolean> = {
  uuid: (value) => UUID.test(value),
  email: (value) => EMAIL.test(value),
  "date-time": (value) => DATE_TIME.test(value) && !Number.isNaN(Date.parse(value)),
};

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** (Re)registers our formats, replacing any a library registered under the same names. */
export function registerFormats(): void {
  for (const [name, check] of Object.entries(formats)) FormatRegistry.Set(name, check);
}

registerFormats();
