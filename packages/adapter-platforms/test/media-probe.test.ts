// The dry runs' media probe: the caller's signal stops it, and its time limit holds with one.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMediaProbe } from '../src/index.ts';
import { testMediaDispatcher } from './helpers.ts';

let server: Server;
let baseUrl: string;
let requests = 0;

beforeEach(async () => {
  requests = 0;
  // /hop/N redirects to /hop/N-1 after 100 ms; /hop/0 is an image. /hang never answers.
  server = createServer((request, response) => {
    requests += 1;
    const hop = /^\/hop\/(\d+)/.exec(request.url ?? '');
    if (!hop) return; // /hang
    const left = Number(hop[1]);
    setTimeout(() => {
      if (left === 0) {
        response.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': '10' });
        response.end();
      } else {
        response.writeHead(302, { location: `/hop/${left - 1}`, 'content-length': '0' });
        response.end();
      }
    }, 100);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('createMediaProbe', () => {
  it('answers what the media is', async () => {
    const probe = createMediaProbe(testMediaDispatcher, 5_000);
    expect(await probe.probe(`${baseUrl}/hop/1`)).toEqual({
      ok: true,
      contentType: 'image/jpeg',
      bytes: 10,
    });
  });

  it("stops when the caller's signal aborts (its client went away)", async () => {
    const probe = createMediaProbe(testMediaDispatcher, 30_000);
    const controller = new AbortController();
    const started = Date.now();
    const answer = probe.probe(`${baseUrl}/hang`, controller.signal);
    setTimeout(() => controller.abort(), 100);
    expect((await answer).ok).toBe(false);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("keeps its time limit when given the caller's signal", async () => {
    // Five hops of 100 ms each: every answer is quick, the whole is not.
    const probe = createMediaProbe(testMediaDispatcher, 250);
    const result = await probe.probe(`${baseUrl}/hop/5`, new AbortController().signal);
    expect(result.ok).toBe(false);
    expect(requests).toBeLessThan(6);
  });
});
