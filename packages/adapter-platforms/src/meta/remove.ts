// Deleting published posts on Meta's Graph APIs (Facebook Pages, Threads): DELETE /{object-id}
// with the token in the query, answered `{ success: true }` (Threads adds `deleted_id`); a
// comment or a reply is an object like any other and is deleted the same way
// (developers.facebook.com "Pages API: Posts", "Threads API: Delete Posts").
import type { PlatformRemover } from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { fail } from '../shared/outcome.ts';
import { PartGone, removeParts } from '../shared/remove-parts.ts';
import { type GraphFailure, graphErrorOf } from './failure.ts';
import { graphClient } from './graph-api.ts';

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
 * A refused delete: code 100 subcode 33 ("Object with ID … does not exist, cannot be loaded
 * due to missing permissions, or does not support this operation") or a bare 404 is a part
 * already gone; anything else is read as the network's publishing reads it (190 a refused
 * token, its throttle codes with Meta's wait, 5xx retried).
 */
export function graphRemoveFailure(label: string, otherwise: GraphFailure): GraphFailure {
  return (status, body, text, headers) => {
    const error = graphErrorOf(body);
    if (error ? error.code === 100 && error.subcode === 33 : status === 404) {
      return new PartGone(`${label}: ${error?.message ?? `HTTP ${status}`}`);
    }
    return otherwise(status, body, text, headers);
  };
}

/** The remover of a Graph network: one DELETE per part, the connection's token in the query. */
export function graphRemover(runtime: PublisherRuntime, spec: GraphRemoverSpec): PlatformRemover {
  const failure = graphRemoveFailure(spec.label, spec.publishFailure);
  return {
    ...(spec.scopes ? { scopes: spec.scopes } : {}),
    remove: (request) => {
      const graph = graphClient(runtime, request.signal, { ...spec, failure });
      const token = request.connection.accessToken;
      return removeParts(request, async (part) => {
        const body = await graph('DELETE', `/${encodeURIComponent(part.id)}`, {
          query: { access_token: token },
        });
        // Graph answers success: false rarely and without saying why: worth asking again.
        if (body.success !== true) {
          throw fail('not_deleted', `${spec.label} did not confirm the delete of ${part.id}`, true);
        }
      });
    },
  };
}
