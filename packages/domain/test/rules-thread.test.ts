import { describe, expect, it } from 'vitest';
import { MAX_THREAD_PARTS, validateFirstComment, validateThread } from '../src/index.ts';

const x = { name: 'twitter', contentMaxLength: 280, replies: true };
const linkedin = { name: 'linkedin', contentMaxLength: 3000, comments: true };

describe('thread rules', () => {
  it('takes follow-ups within each target limit on a platform with replies', () => {
    expect(validateThread([{ content: 'two' }, { content: 'three', media_urls: [] }], [x])).toEqual(
      [],
    );
  });

  it('refuses thread on a platform without replies, naming the field', () => {
    expect(validateThread([{ content: 'more' }], [linkedin])).toEqual([
      { field: 'thread', message: 'is not supported on linkedin (no replies)' },
    ]);
  });

  it('counts each part against the platform limit and names the part', () => {
    expect(validateThread([{ content: 'ok' }, { content: 'a'.repeat(281) }], [x])).toEqual([
      { field: 'thread[1].content', message: 'twitter posts are limited to 280 characters' },
    ]);
  });

  it('refuses more than 25 parts, empty parts and bad media URLs', () => {
    const many = Array.from({ length: MAX_THREAD_PARTS + 1 }, (_, i) => ({ content: `p${i}` }));
    expect(validateThread(many, [x])).toEqual([
      { field: 'thread', message: 'must hold at most 25 follow-ups' },
    ]);
    expect(validateThread([{ content: ' ', media_urls: ['ftp://a/b.jpg'] }], [x])).toEqual([
      { field: 'thread[0].content', message: 'is required (a non-empty string)' },
      { field: 'thread[0].media_urls[0]', message: 'must be an http or https URL' },
    ]);
    expect(validateThread('nope', [x])[0]?.field).toBe('thread');
  });
});

describe('first_comment rules', () => {
  it('takes a comment on a platform with comments, refuses it elsewhere', () => {
    expect(validateFirstComment('first!', [linkedin])).toEqual([]);
    expect(validateFirstComment('first!', [x])).toEqual([
      { field: 'first_comment', message: 'is not supported on twitter' },
    ]);
    expect(validateFirstComment(42, [linkedin])).toEqual([
      { field: 'first_comment', message: 'must be a string, got number' },
    ]);
  });
});
