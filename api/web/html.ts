/** Text for HTML element content and quoted attribute values: `& < > " '` as character references. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
