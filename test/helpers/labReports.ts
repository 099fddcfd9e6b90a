import { PDFDocument, rgb, StandardFonts } from "pdf-lib";

/**
 * Lab reports built in code, each with the truth a reader must recover from it: five layouts seen
 * in real reports (one result per line, "Name: value (Reference: …)", two multi-page tables with
 * different column orders, a sectioned report with footnotes), and prose PDFs that are not reports.
 * Text is drawn row by row, as report generators do, so pdf.js joins a row's cells into one line.
 */

export interface TruthResult {
  name: string;
  valueText: string;
  value: number | null;
  unit: string | null;
  low: number | null;
  high: number | null;
  rangeText: string | null;
  flag: "low" | "high" | "normal" | "abnormal" | null;
  page: number;
}

export interface LabReportFixture {
  layout: string;
  pdf: Uint8Array;
  truth: { lab: string | null; collectedAt: string | null; results: TruthResult[] };
}

/** A row as printed plus what it means; `printed` is the lab's own flag text. */
interface Row extends Omit<TruthResult, "page"> {
  printed: string | null;
}

/**
 * A result row written `name|value|unit|range|low|high|flag|printed`, empty meaning none. The truth
 * is stated, not derived by parsing: `flag` is the printed flag's meaning, else the range's verdict.
 */
function row(spec: string): Row {
  const [name, valueText, unit, range, low, high, flag, printed] = spec.split("|").map((part) => part || null);
  const number = (text: string | null | undefined) => (text ? Number(text) : null);
  return {
    ...{ name: name!, valueText: valueText!, unit: unit ?? null, rangeText: range ?? null, printed: printed ?? null },
    ...{ value: /^\d+(\.\d+)?$/.test(valueText!) ? Number(valueText) : null, low: number(low), high: number(high) },
    flag: (flag ?? null) as TruthResult["flag"],
  };
}

/** Text at an x position (negative: right-aligned there); "flag" cells are drawn bold and red. */
type Cell = [string | null, number, ("flag" | "bold")?];

/** Draws lines top to bottom on A4 pages, each line's cells left to right, as report generators do. */
async function pen() {
  const doc = await PDFDocument.create();
  const regular = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  let page = doc.addPage([595, 842]);
  let y = 800;
  return {
    doc,
    page: () => doc.getPageCount(),
    newPage: () => {
      [page, y] = [doc.addPage([595, 842]), 800];
    },
    footer: (text: string) => page.drawText(text, { x: 260, y: 30, size: 8, font: regular }),
    rule: () => page.drawLine({ start: { x: 50, y: y + 12 }, end: { x: 545, y: y + 12 }, color: rgb(0.6, 0.6, 0.6) }),
    line: (cells: Cell[], size = 10) => {
      for (const [text, at, style] of cells) {
        if (!text) continue;
        const font = style ? bold : regular;
        const x = at < 0 ? -at - font.widthOfTextAtSize(text, size) : at;
        page.drawText(text, { x, y, size, font, color: style === "flag" ? rgb(0.75, 0, 0) : rgb(0, 0, 0) });
      }
      y -= size + 6;
    },
  };
}
type Pen = Awaited<ReturnType<typeof pen>>;

/**
 * A report as a script, one printed line per script line: `~row` is a result drawn by the layout,
 * `=A|B|…` a table header on the layout's columns, `# …` a heading, `! …` the lab's title, `___`
 * a rule, `---` a page break; any other line is text, three spaces starting a cell 180 pt further.
 */
interface Layout {
  layout: string;
  lab: string;
  collectedAt: string;
  script: string;
  /** Table columns as `key@x …`; without them, `draw` writes the row as one string. */
  columns?: string;
  draw?: (row: Row) => string;
}

type Columns = [keyof Row, number][];

function drawRow(pen: Pen, layout: Layout, columns: Columns, result: Row): void {
  const text = (key: keyof Row) => (result[key] === null ? null : String(result[key]));
  const cell = ([key, x]: Columns[number]): Cell => [text(key), x, key === "printed" ? "flag" : undefined];
  pen.line(layout.draw ? [[layout.draw(result), 50]] : columns.map(cell));
}

/** Draws one script line; a result line also returns its truth. */
function drawLine(pen: Pen, layout: Layout, columns: Columns, line: string): TruthResult | null {
  if (line === "---") pen.newPage();
  else if (line === "___") pen.rule();
  else if (/^[!#] /.test(line)) pen.line([[line.slice(2), 50, "bold"]], line.startsWith("!") ? 16 : 12);
  else if (line.startsWith("=")) {
    const names = line.slice(1).split("|");
    pen.line(names.map((name, i): Cell => [name, columns[i]![1], "bold"]));
  } else if (line.startsWith("~")) {
    const result = row(line.slice(1));
    drawRow(pen, layout, columns, result);
    const { printed: _printed, ...truth } = result;
    return { ...truth, page: pen.page() };
  } else pen.line(line.split(/\s{3,}/).map((cell, i): Cell => [cell, 50 + 180 * i]));
  return null;
}

async function render(layout: Layout): Promise<LabReportFixture> {
  const drawing = await pen();
  const lines = layout.script.trim().split(/\s*\n\s*/);
  const columns = (layout.columns?.split(" ") ?? []).map((c) => c.split("@")).map(([k, x]) => [k, Number(x)]);
  const pages = lines.filter((line) => line === "---").length + 1;
  const results: TruthResult[] = [];
  for (const line of lines) {
    if (line === "---") drawing.footer(`Page ${drawing.page()} of ${pages}`);
    const result = drawLine(drawing, layout, columns as Columns, line);
    if (result) results.push(result);
  }
  drawing.footer(`Page ${pages} of ${pages}`);
  const truth = { lab: layout.lab, collectedAt: layout.collectedAt, results };
  return { layout: layout.layout, pdf: await drawing.doc.save(), truth };
}

const PATIENT = "Patient: Ana Lima   DOB: 02/05/1984   MRN: 00412345";
const joined = (...parts: (string | null)[]) => parts.filter(Boolean).join(" ");

/** (a) One result per line, as one string: "Hemoglobin 11.4 g/dL 12.0–15.5 L". The lab prints H/L. */
export const oneLineReport = () =>
  render({
    layout: "one result per line",
    lab: "Northside Clinical Laboratory",
    collectedAt: "2026-03-14T08:30:00",
    draw: (r) => joined(r.name, r.valueText, r.unit, r.rangeText, r.printed),
    script: `
      ! Northside Clinical Laboratory
      41 Kingsway, Manchester M20 5PQ
      Tel 0161 496 0321
      ${PATIENT}
      Collected: 2026-03-14 08:30   Reported: 2026-03-14 17:05
      Requested by: Dr. L. Chen, Oakwood Family Practice
      ___
      ~Hemoglobin|11.4|g/dL|12.0–15.5|12|15.5|low|L
      ~Hematocrit|37.2|%|36.0–46.0|36|46|normal
      ~WBC|11.8|x10^9/L|4.0–11.0|4|11|high|H
      ~Platelets|262|x10^9/L|150–400|150|400|normal
      ~Potassium|4.2|mmol/L|3.5-5.0|3.5|5|normal
      ~Glucose|3.6|mmol/L|3.9–5.5|3.9|5.5|low|L
      ~Creatinine|96|µmol/L|45–90|45|90|high|H
      ~TSH|2.1|mIU/L|0.4–4.0|0.4|4|normal
      ~Urine protein|Negative||Negative|||
      End of report`,
  });

/** (b) "Name: value unit (Reference: a–b)", flags left to the reader. */
export const labelledReport = () =>
  render({
    layout: "name: value (reference)",
    lab: "Riverside Pathology",
    collectedAt: "2026-03-14",
    draw: (r) => `${r.name}: ${joined(r.valueText, r.unit)} (Reference: ${r.rangeText})`,
    script: `
      ! Riverside Pathology
      Unit 4, Mill Lane Business Park, Norwich NR3 1HS
      Patient: Ana Lima   NHS no. 943 476 5919
      Date collected 14/03/2026
      Fasting: 10 hours
      ___
      ~Total cholesterol|212|mg/dL|<200||200|high
      ~HDL cholesterol|52|mg/dL|>40|40||normal
      ~LDL cholesterol|131|mg/dL|<130||130|high
      ~Glucose (fasting)|5.8|mmol/L|3.9–5.5|3.9|5.5|high
      ~HbA1c|5.9|%|4.0–5.6|4|5.6|high
      ~eGFR|58|mL/min/1.73m²|>60|60||low
      ~Ferritin|12|µg/L|15–150|15|150|low
      ~Hepatitis B surface antigen|Negative||Negative|||
      Dear colleague, please contact the laboratory with any questions about these results.`,
  });

/** (c) Test | Result | Flag | Units | Reference range over two pages; the header is not repeated. */
export const flaggedTableReport = () =>
  render({
    layout: "flagged table, two pages",
    lab: "Meridian Diagnostics",
    collectedAt: "2026-03-14",
    columns: "name@50 valueText@220 printed@290 unit@340 rangeText@430",
    script: `
      LABORATORY REPORT
      ! Meridian Diagnostics
      ${PATIENT}
      Collection Date: Mar 14, 2026
      ___
      =Test|Result|Flag|Units|Reference range
      ~Hemoglobin|11.2|g/dL|12.0 - 15.5|12|15.5|low|LOW
      ~Hematocrit|34.0|%|36.0 - 46.0|36|46|low|LOW
      ~MCV|88|fL|80 - 100|80|100|normal
      ~WBC|6.1|x10^9/L|4.0 - 11.0|4|11|normal
      ~Platelets|452|x10^9/L|150 - 400|150|400|high|HIGH
      ~Total cholesterol|200|mg/dL|<200||200|high|HIGH
      ~ALT|32|U/L|7 - 56|7|56|normal
      Continued on next page
      ---
      Meridian Diagnostics - Ana Lima - continued
      ~TSH|6.3|mIU/L|0.4 - 4.0|0.4|4|high|HIGH
      ~Free T4|13|pmol/L|9 - 19|9|19|normal
      ~Creatinine|102|µmol/L|45 - 90|45|90|high|HIGH
      ~Vitamin D|48|nmol/L|50 - 125|50|125|low|LOW
      ~Hepatitis C antibody|Reactive||Non-reactive|||abnormal|A
      Authorised by: Dr. R. Nwosu 14/03/2026 18:20`,
  });

/** (d) Test | Reference | Result | Units, values right-aligned, no flags; the header repeats on page 2. */
export const referenceFirstReport = () =>
  render({
    layout: "reference-first table, two pages",
    lab: "Greenfield Hospital Laboratory",
    collectedAt: "2026-03-14T07:45:00",
    columns: "name@50 rangeText@220 valueText@-370 unit@420",
    script: `
      ! Greenfield Hospital
      Performing laboratory: Greenfield Hospital Laboratory
      ${PATIENT}
      Specimen collected: 14 March 2026 07:45
      =Test|Reference|Result|Units
      ~Sodium|141|mmol/L|135-145|135|145|normal
      ~Potassium|5.4|mmol/L|3.5-5.0|3.5|5|high
      ~Bicarbonate|20|mmol/L|22-29|22|29|low
      ~Creatinine|71|µmol/L|45-90|45|90|normal
      ~Calcium|2.41|mmol/L|2.20-2.60|2.2|2.6|normal
      ~Albumin|38|g/L|35-50|35|50|normal
      ---
      =Test|Reference|Result|Units
      ~Bilirubin|9|µmol/L|<21||21|normal
      ~ALP|142|U/L|30-130|30|130|high
      ~GGT|55|U/L|<40||40|high
      ~CRP|12|mg/L|<5||5|high
      ~Magnesium|0.82|mmol/L|0.70-1.00|0.7|1|normal
      ~Urine ketones|Trace||Negative|||`,
  });

/** (e) Section headings, "*" marking out-of-range values, footnotes and addresses to ignore. */
export const sectionedReport = () =>
  render({
    layout: "sections with footnotes, two pages",
    lab: "Lakeside Medical Laboratories",
    collectedAt: "2026-03-13T19:05:00",
    columns: "name@60 valueText@240 printed@285 unit@305 rangeText@400",
    script: `
      ! Lakeside Medical Laboratories
      ${PATIENT}
      Collected on 13 Mar 2026 at 19:05
      # Lipid panel
      ~Total cholesterol|5.9|mmol/L|<5.0||5|high|*
      ~LDL cholesterol|4.1|mmol/L|<3.0||3|high|*
      ~HDL cholesterol|0.9|mmol/L|>1.0|1||low|*
      ~Triglycerides|1.6|mmol/L|<1.7||1.7|normal
      ~Cholesterol/HDL ratio|6.6||<5.0||5|high|*
      # Complete blood count (CBC)
      ~Hemoglobin|14.1|g/dL|13.0-17.0|13|17|normal
      ~WBC|3.1|x10^9/L|4.0-11.0|4|11|low|*
      ~Lymphocytes|0.9|x10^9/L|1.0-4.0|1|4|low|*
      ~Platelets|210|x10^9/L|150-400|150|400|normal
      * Result outside the reference interval.
      ---
      # Thyroid function
      ~TSH|0.21|mIU/L|0.40-4.00|0.4|4|low|*
      ~Free T4|22.5|pmol/L|9.0-19.0|9|19|high|*
      ~Anti-TPO antibodies|12|IU/mL|<34||34|normal
      # Diabetes
      ~HbA1c|48|mmol/mol|20-41|20|41|high|*
      ~Urine albumin|Positive||Negative|||abnormal|*
      * Result outside the reference interval.
      Reference intervals apply to adults aged 18-65.
      Reviewed by: Dr. M. Okafor, Consultant Chemical Pathologist
      Lakeside Medical Laboratories, 8 Quay Street, Bristol BS1 4DJ`,
  });

export const LAB_REPORTS = [oneLineReport, labelledReport, flaggedTableReport, referenceFirstReport, sectionedReport];

/** A PDF of running prose, wrapped at about 90 characters a line: not a lab report. */
export async function prosePdf(paragraphs: string[]): Promise<Uint8Array> {
  const drawing = await pen();
  for (const paragraph of paragraphs) {
    for (const line of paragraph.match(/.{1,90}(\s|$)/g) ?? []) drawing.line([[line.trim(), 50]]);
    drawing.line([]);
  }
  return drawing.doc.save();
}
