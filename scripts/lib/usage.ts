/** Stops a maintainer script that was not given its input: its inputs are not in the repository. */
export function usage(line: string): never {
  console.error(`usage: ${line}`);
  process.exit(2);
}
