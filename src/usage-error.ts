/** A mistake by an operator at the CLI: printed as one line on stderr, exit code 1. */
export class UsageError extends Error {}
