/** PATCH /workspaces/:id: a team's settings (docs/api.md#workspaces, #approval). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { updateWorkspace } from '@social-publisher/domain';
import { Type } from 'typebox';
import { actorOf } from '../context.ts';
import { unwrap } from '../errors.ts';
import { Data } from '../schemas/common.ts';
import { AUTH_ERRORS, BODY_ERRORS, errors, PATH_ERRORS } from '../schemas/error-responses.ts';
import { presentWorkspace, WorkspaceSchema } from '../schemas/workspaces.ts';
import { type RouteOptions, SECURED } from './route-options.ts';

const UpdateWorkspaceBody = Type.Object(
  {
    approval_required: Type.Boolean({
      description:
        "true: members' posts (created, or edited) wait for an owner's or an admin's approval",
    }),
  },
  { additionalProperties: false },
);

const WorkspaceParams = Type.Object({ id: Type.String({ description: 'Workspace id' }) });

export const workspaceSettingsRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (
  app,
  { deps },
) => {
  app.patch(
    '/workspaces/:id',
    {
      schema: {
        tags: ['Workspaces'],
        operationId: 'updateWorkspace',
        summary: "Change a workspace's settings",
        description:
          "Owners and admins only (403 otherwise). approval_required: members' posts wait for approval from now on; turning it off leaves posts already waiting as they are. A personal account has no members: 403.",
        security: SECURED,
        params: WorkspaceParams,
        body: UpdateWorkspaceBody,
        response: {
          200: Data(WorkspaceSchema, 'The workspace as it now is'),
          ...errors(...AUTH_ERRORS, ...BODY_ERRORS, ...PATH_ERRORS, 403),
        },
      },
    },
    async (request) => {
      const { approval_required: approvalRequired } = request.body;
      const { account, role } = unwrap(
        await updateWorkspace(deps, actorOf(request), request.params.id, { approvalRequired }),
      );
      return { data: presentWorkspace(account, role) };
    },
  );
};
