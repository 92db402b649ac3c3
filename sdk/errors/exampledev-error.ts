/**
 * The root of every error the client and the provider throw, as openai-node has `OpenAIError`: one
 * `instanceof ExampledevError` catches an error answer of the API, a request without an answer, a failed
 * wait, an unusable kubeconfig. `name` is the subclass's own.
 */
export class ExampledevError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}
