// The Instagram comments client against the fake Graph API: a media's comments with their
// replies (one level, as Instagram nests them), a reply to a top-level comment (none to a reply),
// that reply found again, others' comments hidden, a comment deleted, and a deleted one `gone`.
import type { PlatformCommentsClient, PublishConnection } from '@social-publisher/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformRegistry } from '../src/registry.ts';
import { type FakeInstagram, startFakeInstagram, testConfig } from './helpers.ts';

let fake: FakeInstagram;
let client: PlatformCommentsClient;
beforeAll(async () => {
  fake = await startFakeInstagram();
  const config = testConfig({ instagram: { apiBaseUrl: fake.baseUrl, graphVersion: 'v21.0' } });
  const found = createPlatformRegistry(config).commentsClient('instagram');
  if (!found) throw new Error('no Instagram comments client');
  client = found;
});
afterAll(() => fake.close());

const signal = () => new AbortController().signal;
const connection: PublishConnection = {
  id: 'conn-1',
  platform: 'instagram',
  externalId: '17841400000000001',
  accessToken: 'ig-token',
  refreshToken: null,
  tokenExpiresAt: null,
  platformData: null,
};
let unique = 0;
const mediaId = () => `1790000000000${++unique}`;
const ref = (media: string, comment: string) => ({
  connection,
  platformPostId: media,
  platformCommentId: comment,
  signal: signal(),
});

describe('Instagram comments', () => {
  it("reads a media's comments with their replies under them", async () => {
    const media = mediaId();
    const first = fake.addComment(media, 'So good');
    const answer = fake.addComment(first.id, 'Agreed');
    const listed = await client.list({
      connection,
      platformPostId: media,
      since: null,
      limit: 100,
      signal: signal(),
    });
    expect(listed).toEqual({
      kind: 'listed',
      comments: [
        {
          platformCommentId: first.id,
          parentPlatformId: null,
          author: { id: '17841400000000099', name: null, handle: 'a_fan' },
          text: 'So good',
          createdAt: new Date((first.timestamp ?? '').replace(/([+-]\d{2})(\d{2})$/, '$1:$2')),
          hidden: false,
          mine: false,
        },
        expect.objectContaining({ platformCommentId: answer.id, parentPlatformId: first.id }),
      ],
    });
    expect(client.can({ mine: false, parentPlatformId: first.id }).reply).toBe(false);
    expect(client.scopes).toEqual(['instagram_business_manage_comments']);
  });

  it('replies to a top-level comment and finds the reply again', async () => {
    const media = mediaId();
    const question = fake.addComment(media, 'Price?');
    const since = new Date(Date.now() - 2_000);
    const sent = await client.reply({
      ...ref(media, question.id),
      text: 'In the link',
      idempotencyKey: 'k',
      intentAt: since,
    });
    if (sent.kind !== 'sent') throw new Error(JSON.stringify(sent));
    expect(fake.comments.find((c) => c.id === sent.comment.platformCommentId)).toMatchObject({
      parentId: question.id,
      message: 'In the link',
    });
    const find = (text: string) =>
      client.findReply({ ...ref(media, question.id), text, since, idempotencyKey: 'k' });
    expect(await find('In the link')).toMatchObject({ kind: 'found', comment: { mine: true } });
    expect(await find('Elsewhere')).toEqual({ kind: 'not_found' });
  });

  it("hides others' comments, deletes one, and a deleted one is gone", async () => {
    const media = mediaId();
    const spam = fake.addComment(media, 'Spam');
    expect(await client.hide?.({ ...ref(media, spam.id), hidden: true })).toEqual({
      kind: 'done',
    });
    expect(fake.comments.find((c) => c.id === spam.id)?.hidden).toBe(true);
    expect(await client.delete?.(ref(media, spam.id))).toEqual({ kind: 'done' });
    expect(fake.comments.some((c) => c.id === spam.id)).toBe(false);
    const again = await client.reply({
      ...ref(media, spam.id),
      text: 'Hello?',
      idempotencyKey: 'k2',
      intentAt: new Date(),
    });
    expect(again.kind).toBe('gone');
  });
});
