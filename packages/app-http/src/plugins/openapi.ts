/** OpenAPI 3.1 generated from the route schemas (GET /openapi.json) and Swagger UI at /docs. */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

export async function installOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Social Publisher API',
        version: '1.0.0',
        description:
          'Publish and schedule posts to connected social accounts. Every success body is `{ "data": ... }`; every error body is `{ "error": { "code", "message", "details"? } }`. Authenticate with `Authorization: Bearer <API key>` or `X-API-Key`.',
        contact: { name: 'The operator of this Social Publisher server' },
      },
      // Relative: the document describes the server that serves it, wherever it is reached.
      servers: [{ url: '/', description: 'This server' }],
      tags: [
        { name: 'Posts' },
        { name: 'Social accounts' },
        { name: 'API keys' },
        { name: 'Webhooks' },
        { name: 'Workspaces' },
        { name: 'Media' },
        { name: 'System' },
      ],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: 'An API key (sp_...) or, when configured, a user JWT',
          },
          apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
}

/** GET /openapi.json; register after every other route so the document is complete. */
export function installOpenApiRoute(app: FastifyInstance): void {
  app.get(
    '/openapi.json',
    {
      schema: {
        tags: ['System'],
        operationId: 'getOpenApiDocument',
        summary: 'This OpenAPI document',
        description:
          'The OpenAPI 3.1 description of this API, generated from the schemas every request is checked against.',
        response: {
          200: { type: 'object', additionalProperties: true, description: 'OpenAPI 3.1' },
        },
      },
    },
    async () => app.swagger(),
  );
}
