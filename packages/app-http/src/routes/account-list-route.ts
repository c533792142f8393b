/**
 * `GET /<things>`: the list of one kind of thing of the caller's personal account or, with
 * `workspace_id`, of a team. API keys, connections and webhooks are listed alike: the same
 * query, the same answers and errors, the domain's list mapped through the presenter.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AccountContext, CoreDeps } from '@social-publisher/domain';
import { type TSchema, Type } from 'typebox';
import { contextOf } from '../context.ts';
import { Data, WorkspaceQuery } from '../schemas/common.ts';
import { AUTH_ERRORS, errors } from '../schemas/error-responses.ts';
import { SECURED } from './route-options.ts';

type App = Parameters<FastifyPluginAsyncTypebox>[0];

export interface AccountListRoute<Item, Shown> {
  path: string;
  tag: string;
  operationId: string;
  summary: string;
  description: string;
  /** The schema of one listed item, and what the list is called in the answer's description. */
  item: TSchema;
  listed: string;
  list(deps: CoreDeps, ctx: AccountContext): Promise<Item[]>;
  present(item: Item): Shown;
}

export function addAccountListRoute<Item, Shown>(
  app: App,
  deps: CoreDeps,
  route: AccountListRoute<Item, Shown>,
): void {
  app.get(
    route.path,
    {
      schema: {
        tags: [route.tag],
        operationId: route.operationId,
        summary: route.summary,
        description: route.description,
        security: SECURED,
        querystring: WorkspaceQuery,
        response: {
          200: Data(Type.Array(route.item), route.listed),
          ...errors(...AUTH_ERRORS, 400, 403),
        },
      },
    },
    async (request) => {
      const ctx = await contextOf(deps, request, request.query.workspace_id);
      return { data: (await route.list(deps, ctx)).map((item) => route.present(item)) };
    },
  );
}
