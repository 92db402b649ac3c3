import { ExampledevError } from "../sdk/errors";
import type { ObjectInputs, ObjectOutputs } from "./state";

/**
 * An error after the object exists on the server (not ready, or the create's outcome unconfirmed): the
 * engine records the object (id and properties) as created but failed to initialise, instead of forgetting
 * it. Both hosts throw it: the dynamic provider host reads `id`, `properties` and `reasons` off the error,
 * the native plugin's server (native/server.ts) sends them as the gRPC error's details.
 */
export class PartialFailure extends ExampledevError {
  constructor(
    message: string,
    readonly id: string,
    readonly properties: Record<string, unknown>,
    readonly reasons: string[] = [message],
  ) {
    super(message);
  }

  /** The same failure with the properties as a host sends them. */
  withProperties(properties: Record<string, unknown>): PartialFailure {
    return new PartialFailure(this.message, this.id, properties, this.reasons);
  }
}

/**
 * The partial failure of the object `inputs` declare, recorded with `outputs`. Its properties carry the
 * serialized provider (`__provider`), or the engine loses it.
 */
export function partialFailure(
  message: string,
  inputs: ObjectInputs,
  outputs: ObjectOutputs,
): PartialFailure {
  return new PartialFailure(message, inputs.metadata.name, { ...outputs, __provider: inputs.__provider });
}
