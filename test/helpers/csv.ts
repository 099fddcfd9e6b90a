/** RFC 4180: quoted cells may hold commas, doubled quotes and line breaks; lines end with CRLF. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') [cell, i] = [`${cell}"`, i + 1];
      else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"') quoted = true;
    else if (char === ",") [row, cell] = [[...row, cell], ""];
    else if (char === "\r" && text[i + 1] === "\n") {
      rows.push([...row, cell]);
      [row, cell, i] = [[], "", i + 1];
    } else cell += char;
  }
  if (cell !== "" || row.length > 0) throw new Error("the last line has no CRLF");
  return rows;
}
