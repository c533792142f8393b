/** OpenAPI 3.1 generated from the route schemas (GET /openapi.json) and Swagger UI at /docs. */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ERROR_DESCRIPTIONS, errors } from '../schemas/error-responses.ts';
import { withWebhooks } from './openapi-webhooks.ts';

/**
 * What the HTTP layer answers before any route runs, whatever the operation: a request line
 * and headers over Node's limit (a long URL counts) are 431 headers_too_large in the error
 * envelope (plugins/client-errors.ts). Documented on every operation, so that each answer a
 * client can get is one the document lists.
 */
const ANSWERS_OF_ANY_REQUEST = {
  431: {
    description: ERROR_DESCRIPTIONS[431],
    content: { 'application/json': { schema: JSON.parse(JSON.stringify(errors(431)[431])) } },
  },
} as const;

/** One operation of the generated document, as the transforms below read and change it. */
type Operation = Record<string, unknown> & {
  responses?: Record<string, unknown>;
  requestBody?: { required?: boolean };
};

/** Calls `change` with every operation of the document (each method of each path). */
function eachOperation(document: { paths?: unknown }, change: (operation: Operation) => void) {
  const paths = (document.paths ?? {}) as Record<string, Record<string, unknown>>;
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      if (typeof operation === 'object' && operation !== null) change(operation as Operation);
    }
  }
}

/** The document with ANSWERS_OF_ANY_REQUEST added to every operation that lacks them. */
function withAnswersOfAnyRequest<T extends { paths?: unknown }>(document: T): T {
  eachOperation(document, ({ responses }) => {
    if (!responses) return;
    for (const [status, response] of Object.entries(ANSWERS_OF_ANY_REQUEST)) {
      responses[status] ??= response;
    }
  });
  return document;
}

/** Marks a route whose body may be left out (its schema's `x-optional-body: true`). */
export const OPTIONAL_BODY = 'x-optional-body';

/**
 * The document with `requestBody.required: false` where a route takes no body as well as one:
 * @fastify/swagger marks every body required.
 */
function withOptionalBodies<T extends { paths?: unknown }>(document: T): T {
  eachOperation(document, (operation) => {
    if (!(OPTIONAL_BODY in operation)) return;
    delete operation[OPTIONAL_BODY];
    if (operation.requestBody) operation.requestBody.required = false;
  });
  return document;
}

export const openApi = fp(
  async (app: FastifyInstance) => {
    await app.register(swagger, {
      transformObject: (documentObject) =>
        'openapiObject' in documentObject
          ? withWebhooks(withOptionalBodies(withAnswersOfAnyRequest(documentObject.openapiObject)))
          : documentObject.swaggerObject,
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
          { name: 'Metrics' },
          { name: 'Comments' },
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
  },
  { name: 'openapi' },
);

/** GET /openapi.json; register after every other route so the document is complete. */
export const openApiDocumentRoute = fp(
  async (app: FastifyInstance) => {
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
  },
  { name: 'openapi-document' },
);
