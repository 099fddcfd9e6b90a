/** OpenAPI security of every key-protected endpoint: an API key in either header. */
export const API_KEY_SECURITY: Record<string, string[]>[] = [{ bearer: [] }, { apiKey: [] }];
