import { Type as T } from "@sinclair/typebox";
import { lookupCondition } from "../../shared/conditions/lookup";
import { AppError } from "../../shared/core/errors";
import { Text } from "../../shared/core/text";
import { searchPapersFielded } from "../../shared/papers/catalog";
import { papersOf } from "../../shared/papers/page";
import type { Paper } from "../../shared/records/paper";
import { jsonContents } from "./contents";
import { definePrompt, userResource, userText } from "./promptKit";
import { resourceUri } from "./resources";

/** Papers a prompt embeds: enough to write from, few enough for a context window (abstracts included). */
const CONDITION_PAPERS = 5;
const REVIEW_PAPERS = 10;

const paperMessage = (paper: Paper) => userResource(jsonContents(resourceUri("paper", paper.id), paper));

export const explainCondition = definePrompt({
  name: "explain_condition",
  title: "Explain a condition",
  description: `A condition's MONDO reference (label, definition when available, synonyms, parents, cross-references) and up to ${CONDITION_PAPERS} papers of our index that name it, with instructions for a plain-language explanation. Needs the Go plan, like the condition tools.`,
  scopes: ["papers:read"],
  feature: "health",
  args: T.Object(
    {
      condition: Text({
        minLength: 2,
        maxLength: 120,
        pattern: "\\S.*\\S",
        description: "A condition or disease name (MONDO label or synonym; typos tolerated; completion offers names).",
      }),
    },
    { additionalProperties: false },
  ),
  messages: async (ctx, args) => {
    const { info, papers } = await lookupCondition(ctx, { q: args.condition, papers: CONDITION_PAPERS });
    return {
      description: `${info.label} (${info.id}) with ${papers.data.length} papers.`,
      messages: [
        userText(
          [
            `Explain ${info.label} (${info.id}) to me in plain language: what it is, how it usually shows, how it is diagnosed and treated, and what the research below adds.`,
            "Use the MONDO reference for names and related conditions; cite the papers by arXiv id and say when they add nothing useful.",
            "This is background reading, not a diagnosis: say so, and say when to see a doctor.",
          ].join("\n"),
        ),
        userText(`MONDO reference for "${args.condition.trim()}":\n${JSON.stringify(info)}`),
        ...(papers.data.length > 0
          ? papers.data.map(paperMessage)
          : [userText("No paper of our index names this condition in its title or abstract.")]),
      ],
    };
  },
});

const Day = (what: string) =>
  T.Optional(
    Text({ minLength: 10, maxLength: 10, pattern: "^\\d{4}-\\d{2}-\\d{2}$", description: `${what}, YYYY-MM-DD.` }),
  );

function realDay(value: string | undefined, name: string): void {
  if (value === undefined) return;
  const time = Date.parse(`${value}T00:00:00Z`);
  if (Number.isNaN(time) || new Date(time).toISOString().slice(0, 10) !== value) {
    throw new AppError(
      "VALIDATION_FAILED",
      `Invalid arguments for literature_review: ${name}: ${value} is not a calendar day.`,
    );
  }
}

export const literatureReview = definePrompt({
  name: "literature_review",
  title: "Literature review",
  description: `The ${REVIEW_PAPERS} papers of our arXiv index most relevant to a topic (every word must match somewhere in the paper), optionally submitted within a date range, with instructions for a short review citing them.`,
  scopes: ["papers:read"],
  args: T.Object(
    {
      topic: Text({ minLength: 1, maxLength: 300, pattern: "\\S", description: "Words every paper must contain." }),
      from: Day("First submission day"),
      to: Day("Last submission day"),
    },
    { additionalProperties: false },
  ),
  messages: async (ctx, args) => {
    realDay(args.from, "from");
    realDay(args.to, "to");
    if (args.from && args.to && args.from > args.to) {
      throw new AppError(
        "VALIDATION_FAILED",
        `Invalid arguments for literature_review: from (${args.from}) is after to (${args.to}).`,
      );
    }
    const topic = args.topic.trim();
    const { page } = await searchPapersFielded(ctx, {
      filters: { all: topic },
      submittedFrom: args.from,
      submittedTo: args.to,
      limit: REVIEW_PAPERS,
    });
    const papers = papersOf(page);
    const range = `${args.from ? ` from ${args.from}` : ""}${args.to ? ` to ${args.to}` : ""}`;
    const more = page.pagination.hasMore ? ", the most relevant of more that match" : "";
    return {
      description: `${papers.length} papers on "${topic}"${range}.`,
      messages: [
        userText(
          [
            `Write a short literature review on "${topic}"${range} from the ${papers.length} papers below${more}.`,
            "Group them by approach or finding; say what each contributes; note where they agree, disagree, and what is missing.",
            "Cite each by arXiv id and year, and use only these papers; say so if they are too few to review.",
          ].join("\n"),
        ),
        ...(papers.length > 0
          ? papers.map(paperMessage)
          : [userText(`No paper of our index matches every word of "${topic}"${range}; suggest broader words.`)]),
      ],
    };
  },
});
