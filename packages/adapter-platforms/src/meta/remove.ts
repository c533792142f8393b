// Deleting published posts on Meta's Graph APIs (Facebook Pages, Threads): DELETE /{object-id}
// with the token in the query, answered `{ success: true }` (Threads adds `deleted_id`); a
// comment or a reply is an object like any other and is deleted the same way
// (developers.facebook.com "Pages API: Posts", "Threads API: Delete Posts").
import type { PlatformRemover } from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { fail } from '../shared/outcome.ts';
import { PartGone, removeParts } from '../shared/remove-parts.ts';
import { type GraphFailure, graphGoneOr } from './failure.ts';
import { deleteGraphObject, graphClient } from './graph-api.ts';

export interface GraphRemoverSpec {
  label: string;
  baseUrl: string;
  version: string;
  /** How the network reads a refusal when publishing (its throttle and token codes). */
  publishFailure: GraphFailure;
  /** The permissions the delete needs beyond publishing's (absent: none). */
  scopes?: readonly string[];
}

/**
 * A refused delete: an object that is not there (graphGoneOr) is a part already gone; anything
 * else is read as the network's publishing reads it (190 a refused token, its throttle codes
 * with Meta's wait, 5xx retried).
 */
export const graphRemoveFailure = (label: string, otherwise: GraphFailure): GraphFailure =>
  graphGoneOr(label, (message) => new PartGone(message), otherwise);

/** The remover of a Graph network: one DELETE per part, the connection's token in the query. */
export function graphRemover(runtime: PublisherRuntime, spec: GraphRemoverSpec): PlatformRemover {
  const failure = graphRemoveFailure(spec.label, spec.publishFailure);
  return {
    ...(spec.scopes ? { scopes: spec.scopes } : {}),
    remove: (request) => {
      const graph = graphClient(runtime, request.signal, { ...spec, failure });
      const token = request.connection.accessToken;
      return removeParts(request, async (part) => {
        const body = await deleteGraphObject(graph, part.id, token);
        // Graph answers success: false rarely and without saying why: worth asking again.
        if (body.success !== true) {
          throw fail('not_deleted', `${spec.label} did not confirm the delete of ${part.id}`, true);
        }
      });
    },
  };
}
