import { ExampledevError } from "./exampledev-error";

/**
 * A create failed in a way that may still have stored the object (a lost answer, retries run out, a 5xx), and
 * the object could not be looked up to tell: it may exist. `cause` is the create's own error.
 */
export class CreateUnconfirmedError extends ExampledevError {
  readonly objectName: string;
  readonly lookupError: unknown;

  constructor(subject: string, objectName: string, cause: Error, lookupError: unknown) {
    const lookup = lookupError instanceof Error ? lookupError.message : String(lookupError);
    super(
      `${subject} may have been created: ${cause.message}; looking it up failed too (${lookup}), so whether it exists is unknown`,
      { cause },
    );
    this.objectName = objectName;
    this.lookupError = lookupError;
  }
}
