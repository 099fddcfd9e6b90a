import { AppError } from "./errors";

/**
 * Wraps a dependency failure as a 503 with `Retry-After`, keeping the cause for the log.
 * Used with `.catch(unavailable("Redis"))` where a dependency outage must not look like a bug.
 */
export function unavailable(dependency: string, retryAfterSeconds = 5) {
  return (cause: unknown): never => {
    if (cause instanceof AppError) throw cause;
    throw new AppError("UNAVAILABLE", `${dependency} is unavailable; retry shortly.`, {
      cause,
      headers: { "Retry-After": String(retryAfterSeconds) },
    });
  };
}

/** A PostgreSQL call whose outage is a 503, as every service verb wants it. */
export function fromPostgres<T>(work: Promise<T>): Promise<T> {
  return work.catch(unavailable("PostgreSQL"));
}
