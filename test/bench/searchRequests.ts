import { fieldedSearchBody } from "../../shared/papers/search/advancedSearch";
import { titleSearchBody } from "../../shared/papers/search/titleSearch";

/**
 * One search as the benches send it, as a line of requests.lua's files ("METHOD<TAB>PATH<TAB>BODY"):
 * to the API, and to Meilisearch as the very body the API builds for it (the same functions).
 */
export interface SearchRequest {
  api: string;
  meili: string;
}

export function searchRequests(uid: string, pageSize: number) {
  return {
    title: (q: string, limit = pageSize): SearchRequest => ({
      api: `GET\t/api/v1/papers/search?q=${encodeURIComponent(q)}&limit=${limit}\t`,
      meili: `POST\t/indexes/${uid}/search\t${JSON.stringify(titleSearchBody(q, 0, limit))}`,
    }),
    /** A title word in one archive, newest first. */
    fielded: (word: string, archive: string): SearchRequest => {
      const body = { searchFilterString: { ti: word, cat: archive }, sortBy: "submittedDate", sortOrder: "desc" };
      const raw = fieldedSearchBody({
        filters: { ti: word, cat: archive },
        page: 0,
        limit: pageSize,
        sortBy: "submittedDate",
        sortOrder: "descending",
      });
      return {
        api: `POST\t/api/v1/papers/search\t${JSON.stringify(body)}`,
        meili: `POST\t/indexes/${uid}/search\t${JSON.stringify(raw)}`,
      };
    },
  };
}
