// `GET /api/v1/namespaces/exampledev-system/secrets/<name>`: the Secret an object's `SECRET_ANNOTATION` names,
// as kube-apiserver serves the one its admission webhook minted (webhook/secrets.ts), so the
// controller reads secret values the same way from either server. The values stay in the local server's
// store; the Secret is a view of the object that names it, for the server's own controller only.
import type { FastifyPluginAsync } from "fastify";
import { secretOwnerOf } from "../../admission";
import { apiError, notFound, type Resource } from "../../sdk/errors/server-errors";
import { SECRET_TYPE, SECRETS_NAMESPACE, secretNameOf, secretValuesOf } from "../../sdk/schema";
import type { ObjectStore } from "../storage";

const SECRETS: Resource = { kind: "Secret", group: "", plural: "secrets" };

export const secretRoutes: FastifyPluginAsync<{ store: ObjectStore }> = async (fastify, { store }) => {
  fastify.get<{ Params: { namespace: string; name: string } }>(
    "/api/v1/namespaces/:namespace/secrets/:name",
    async (request) => {
      const { namespace, name } = request.params;
      if (!request.fromController) {
        throw apiError("Forbidden", `secrets "${name}" is forbidden: only the controller reads Secrets`, {
          name,
          kind: "secrets",
        });
      }
      const owner = namespace === SECRETS_NAMESPACE ? secretOwnerOf(name) : undefined;
      const object = owner && store.get(owner.kind, owner.name);
      // Only the name the object carries now: the values of an earlier name are gone with it.
      if (object === undefined || secretNameOf(object) !== name) {
        throw notFound(SECRETS, name);
      }
      const values = secretValuesOf(object.kind, object.spec);
      return {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name, namespace },
        type: SECRET_TYPE,
        immutable: true,
        data: Object.fromEntries(
          Object.entries(values).map(([key, value]) => [key, Buffer.from(value).toString("base64")]),
        ),
      };
    },
  );
};
