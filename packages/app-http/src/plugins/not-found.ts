/**
 * Unknown routes: 405 `method_not_allowed` (with `Allow`) when the path exists under another
 * method, else 404 `route_not_found`. Both in the error envelope.
 *
 * A fixed path beside an id route (`/social-accounts/connect` beside `/social-accounts/:id`) is
 * a resource of its own: under a method it does not take, the router would hand it to the id
 * route (`GET` as "social account not found", `PATCH /posts/bulk` as an edit of a post named
 * "bulk"); it is answered 405 with the fixed path's methods instead.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { HttpError, sendHttpError } from '../errors.ts';

interface KnownRoute {
  pattern: RegExp;
  methods: Set<string>;
}

const escapeRegExp = (text: string) => text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');

function patternOf(url: string): RegExp {
  const source = url
    .split('/')
    .map((segment) => {
      if (segment.startsWith(':')) return '[^/]+';
      if (segment === '*') return '.*';
      return escapeRegExp(segment);
    })
    .join('/');
  return new RegExp(`^${source}/?$`);
}

/** Call before any route is registered: it records every route for the 405 check. */
export const notFoundHandler = fp(
  async (app: FastifyInstance) => {
    const routes = new Map<string, KnownRoute>();
    /** Fixed paths (no parameter) and their methods. */
    const fixed = new Map<string, Set<string>>();
    app.addHook('onRoute', (route) => {
      let known = routes.get(route.url);
      if (!known) {
        known = { pattern: patternOf(route.url), methods: new Set() };
        routes.set(route.url, known);
      }
      for (const method of Array.isArray(route.method) ? route.method : [route.method]) {
        known.methods.add(method.toUpperCase());
      }
      if (!route.url.includes(':') && !route.url.includes('*')) fixed.set(route.url, known.methods);
    });

    const pathOf = (request: FastifyRequest) => {
      const path = (request.raw.url ?? '/').split('?')[0] ?? '/';
      return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    };

    const notAllowed = (request: FastifyRequest, reply: FastifyReply, allowed: Set<string>) => {
      const allow = [...allowed].sort().join(', ');
      return sendHttpError(
        reply,
        new HttpError(
          405,
          'method_not_allowed',
          `${request.method} is not allowed here; use ${allow}`,
          {
            headers: { Allow: allow },
          },
        ),
      );
    };

    const answer = (request: FastifyRequest, reply: FastifyReply) => {
      const path = pathOf(request);
      const fixedMethods = fixed.get(path);
      if (fixedMethods) return notAllowed(request, reply, fixedMethods);
      const allowed = new Set<string>();
      for (const route of routes.values()) {
        if (route.pattern.test(path)) for (const method of route.methods) allowed.add(method);
      }
      if (allowed.size > 0) return notAllowed(request, reply, allowed);
      return sendHttpError(
        reply,
        new HttpError(404, 'route_not_found', `no route ${request.method} ${path}`),
      );
    };

    // Answered before the body is read: Fastify checks a body's Content-Type first, so a method
    // that takes a body (QUERY) without one, or any body that does not parse, would otherwise be
    // a 400 or 415 about a body no route wants.
    app.addHook('onRequest', async (request, reply) => {
      if (request.is404) return answer(request, reply);
      // Routed to an id route while the path is a fixed one (under a method it does not take).
      if (request.routeOptions.url?.includes(':')) {
        const fixedMethods = fixed.get(pathOf(request));
        if (fixedMethods) return notAllowed(request, reply, fixedMethods);
      }
    });
    app.setNotFoundHandler(answer);
  },
  { name: 'not-found' },
);
