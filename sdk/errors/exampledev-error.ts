/**
 * The root of every error the client and the provider throw, as openai-node has `OpenAIError`: one
 * `instanceof ExampledevError` catches an error answer of the API, a request without an answer, a failed
 * wait, an unusable kubeconfig. `name` is the subclass's own.
 */
export class ExampledevError extends Error {
  // `{ cause }` spelt out: ErrorOptions is in lib es2022 only, which a user's tsconfig may not load.
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}
