import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { HttpError } from '../errors.ts';

/** Whether plain JSON.parse takes it (called only for a body the safe parser refused). */
function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * JSON is the only body format. Fastify's own JSON parser (prototype-poisoning safe) is kept,
 * but an empty body with a JSON content type means "no body" instead of an error, so a client
 * that always sends `Content-Type: application/json` can still call body-less routes. The
 * text/plain parser is removed: any non-JSON body is a 415.
 */
export const jsonBodyParser = fp(
  async (app: FastifyInstance) => {
    const parseJson = app.getDefaultJsonParser('error', 'error');
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      const text = typeof body === 'string' ? body : body.toString('utf8');
      if (text.trim() === '') {
        done(null, undefined);
        return;
      }
      parseJson(request, text, (error, body) => {
        if (error && isJson(text)) {
          // Valid JSON refused by the prototype-poisoning guard: say why, not "not JSON".
          done(
            new HttpError(
              400,
              'invalid_json',
              'the request body holds a key named __proto__, or constructor with a prototype key, which is refused (it could reach object prototypes); rename the key',
            ),
            undefined,
          );
          return;
        }
        done(error, body);
      });
    });
  },
  { name: 'json-body' },
);
