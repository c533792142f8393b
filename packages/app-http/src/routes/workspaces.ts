/** Team accounts: POST/GET /workspaces, POST/DELETE /workspaces/:id/members. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  addMember,
  createWorkspace,
  listWorkspaces,
  MAX_NAME_LENGTH,
  removeMember,
} from '@social-publisher/domain';
import { Type } from 'typebox';
import { actorOf } from '../context.ts';
import { unwrap } from '../errors.ts';
import { Data, NoContent } from '../schemas/common.ts';
import { AUTH_ERRORS, BODY_ERRORS, errors, PATH_ERRORS } from '../schemas/error-responses.ts';
import {
  MembershipSchema,
  presentMembership,
  presentWorkspace,
  RoleSchema,
  WorkspaceSchema,
} from '../schemas/workspaces.ts';
import { type RouteOptions, SECURED } from './route-options.ts';

const CreateWorkspaceBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: MAX_NAME_LENGTH }) },
  { additionalProperties: false },
);

const AddMemberBody = Type.Object(
  {
    user_id: Type.String({ format: 'uuid', description: 'An existing user' }),
    role: RoleSchema,
  },
  { additionalProperties: false },
);

const WorkspaceParams = Type.Object({ id: Type.String({ description: 'Workspace id' }) });
const MemberParams = Type.Object({
  id: Type.String({ description: 'Workspace id' }),
  user_id: Type.String({ description: 'User id' }),
});

export const workspaceRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  app.post(
    '/workspaces',
    {
      schema: {
        tags: ['Workspaces'],
        operationId: 'createWorkspace',
        summary: 'Create a workspace',
        description:
          'Creates a team account; you become its owner. Only with a personal API key or a user token: a team API key acts for its own team and is refused (403).',
        security: SECURED,
        body: CreateWorkspaceBody,
        response: {
          201: Data(WorkspaceSchema, 'The workspace'),
          // 409 limit_exceeded: WORKSPACES_MAX_PER_USER.
          ...errors(...AUTH_ERRORS, ...BODY_ERRORS, 403, 409),
        },
      },
    },
    async (request, reply) => {
      const account = unwrap(await createWorkspace(deps, actorOf(request), request.body));
      reply.header('Location', `/workspaces/${account.id}`);
      return reply.code(201).send({ data: presentWorkspace(account, 'owner') });
    },
  );

  app.get(
    '/workspaces',
    {
      schema: {
        tags: ['Workspaces'],
        operationId: 'listWorkspaces',
        summary: 'List your workspaces',
        description: 'The teams you belong to, with your role (a team key sees its own team only).',
        security: SECURED,
        response: {
          200: Data(Type.Array(WorkspaceSchema), 'Your workspaces'),
          ...errors(...AUTH_ERRORS),
        },
      },
    },
    async (request) => {
      const teams = await listWorkspaces(deps, actorOf(request));
      return { data: teams.map(({ account, role }) => presentWorkspace(account, role)) };
    },
  );

  app.post(
    '/workspaces/:id/members',
    {
      schema: {
        tags: ['Workspaces'],
        operationId: 'setWorkspaceMember',
        summary: 'Add a member or change a role',
        description: 'Owners and admins only; only an owner may grant the owner role.',
        security: SECURED,
        params: WorkspaceParams,
        body: AddMemberBody,
        response: {
          201: Data(MembershipSchema, 'The membership'),
          ...errors(...AUTH_ERRORS, ...BODY_ERRORS, ...PATH_ERRORS, 403, 409),
        },
      },
    },
    async (request, reply) => {
      const { user_id: userId, role } = request.body;
      const membership = unwrap(
        await addMember(deps, actorOf(request), request.params.id, { userId, role }),
      );
      reply.header('Location', `/workspaces/${membership.accountId}/members/${membership.userId}`);
      return reply.code(201).send({ data: presentMembership(membership) });
    },
  );

  app.delete(
    '/workspaces/:id/members/:user_id',
    {
      schema: {
        tags: ['Workspaces'],
        operationId: 'removeWorkspaceMember',
        summary: 'Remove a member',
        description:
          'Owners and admins remove members; anyone may remove themself. The last owner cannot be removed (409).',
        security: SECURED,
        params: MemberParams,
        response: { 204: NoContent, ...errors(...AUTH_ERRORS, ...PATH_ERRORS, 403, 409) },
      },
    },
    async (request, reply) => {
      unwrap(await removeMember(deps, actorOf(request), request.params.id, request.params.user_id));
      return reply.code(204).send(null);
    },
  );
};
