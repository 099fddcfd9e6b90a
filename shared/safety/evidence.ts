import { type ConceptMatch, defineConcepts, findConcepts } from "./conceptMatch";
import { applyConText, type Modifiers, NOT_CURRENT } from "./conText";
import { type Measures, readMeasures } from "./measures";
import { type ParsedText, parseText } from "./nlp";
import { BODY_SIGNS } from "./signsBody";
import { BRAIN_SIGNS } from "./signsBrain";
import { BLOCKERS, EVERYDAY_SYMPTOMS, QUALIFIERS } from "./signsGeneral";
import { HEART_LUNG_SIGNS } from "./signsHeartLungs";
import { MIND_POISON_SIGNS } from "./signsMindPoison";
import { type Subject, subjectAt } from "./subject";

/**
 * What a message says, ready for the catalogue: every concept found, with the ConText categories
 * that modify it and whose it is, plus the measures (temperature, age, durations…). A finding is
 * "current" when no ConText category puts it in the past, in a hypothetical, in the family's
 * history, in a negation or in an information request.
 */
export interface Finding extends ConceptMatch {
  subject: Subject | "animal";
  modifiers: Modifiers;
}

export interface AssessContext {
  /** The writer's age in years, when the service knows it. */
  ageYears?: number;
  /** Whether the writer is pregnant, when the service knows it. */
  pregnant?: boolean;
}

const SIGN_CONCEPTS = defineConcepts({
  ...HEART_LUNG_SIGNS,
  ...BRAIN_SIGNS,
  ...BODY_SIGNS,
  ...MIND_POISON_SIGNS,
  ...QUALIFIERS,
  ...Object.fromEntries(Object.entries(EVERYDAY_SYMPTOMS).map(([id, entry]) => [id, entry.patterns])),
});
const BLOCKER_CONCEPTS = defineConcepts(BLOCKERS);

/** The sign concepts in a parsed message, less those inside a blocker phrase. */
export function findSigns(parsed: ParsedText): ConceptMatch[] {
  const blockers = findConcepts(parsed, BLOCKER_CONCEPTS);
  const blocked = new Set(blockers.flatMap((match) => match.words));
  return findConcepts(parsed, SIGN_CONCEPTS).filter((match) => !match.words.some((word) => blocked.has(word)));
}

export class Evidence {
  readonly parsed: ParsedText;
  readonly measures: Measures;
  /** Every concept found, current or not. */
  readonly all: Finding[];
  private readonly current: Map<string, Finding[]>;

  constructor(
    text: string,
    readonly context: AssessContext = {},
  ) {
    this.parsed = parseText(text);
    this.measures = readMeasures(this.parsed);
    const matches = findSigns(this.parsed);
    const modifiers = applyConText(this.parsed, matches);
    this.all = matches.map((match, i) => ({
      ...match,
      subject: subjectAt(this.parsed, match.start),
      modifiers: modifiers[i] ?? new Set(),
    }));
    this.current = new Map();
    for (const finding of this.all) {
      if (NOT_CURRENT.some((category) => finding.modifiers.has(category))) continue;
      if (finding.subject === "animal") continue;
      const list = this.current.get(finding.concept);
      if (list) list.push(finding);
      else this.current.set(finding.concept, [finding]);
    }
  }

  /** Whether any of the concepts is said as current. */
  has(...concepts: string[]): boolean {
    return concepts.some((concept) => this.current.has(concept));
  }

  /** Current findings of a concept. */
  findings(concept: string): Finding[] {
    return this.current.get(concept) ?? [];
  }

  /**
   * Whether a concept is mentioned as a fact, even in the past: "a positive test last week" still
   * says the writer is pregnant now. Negations, hypotheticals and information requests still count against it.
   */
  mentioned(concept: string): boolean {
    return this.all.some(
      (finding) =>
        finding.concept === concept &&
        !["NEGATED", "HYPOTHETICAL", "TOPIC", "FICTION"].some((category) => finding.modifiers.has(category as never)),
    );
  }

  /** Current concept ids, in the order first found. */
  currentConcepts(): string[] {
    return [...this.current.keys()];
  }

  /** Whether two concepts are current in the same sentence or in sentences next to each other. */
  near(a: string, b: string, sentences = 1): boolean {
    return this.findings(a).some((x) => this.findings(b).some((y) => Math.abs(x.sentence - y.sentence) <= sentences));
  }

  /** The subject of the first current finding among the concepts, in the order given. */
  subjectOf(...concepts: string[]): Subject {
    for (const concept of concepts) {
      const [first] = this.findings(concept);
      if (first && first.subject !== "animal") return first.subject;
    }
    return "self";
  }

  /** The longest duration said in the sentence of a concept (or anywhere, without one), in minutes. */
  durationMinutes(concept?: string): number {
    const sentences = concept ? new Set(this.findings(concept).map((finding) => finding.sentence)) : undefined;
    const durations = this.measures.durations.filter((d) => !sentences || sentences.has(d.sentence));
    return Math.max(0, ...durations.map((d) => d.minutes));
  }

  /** Age in years of the person the message is about: stated in the text, else the writer's known age. */
  get ageYears(): number | undefined {
    return this.measures.ageYears ?? this.context.ageYears;
  }

  /** A child (under 16), by stated age or by a word such as "son", "toddler" or "baby". */
  get child(): boolean {
    const age = this.ageYears;
    if (age !== undefined) return age < 16;
    // In pregnancy "the baby" is the unborn baby.
    if (this.pregnant) return false;
    return this.has("AGE_CHILD_WORD") || this.measures.babyOfUnknownAge;
  }

  get pregnant(): boolean {
    return this.context.pregnant === true || this.has("PREGNANT") || this.measures.gestationWeeks !== undefined;
  }

  /** Body temperature ≥ `celsius`, or the word "fever" when no number is given and `celsius` ≤ 38. */
  feverAtLeast(celsius: number): boolean {
    const measured = this.measures.temperatureC;
    if (measured !== undefined) return measured >= celsius;
    return celsius <= 38 && this.has("FEVER");
  }
}
