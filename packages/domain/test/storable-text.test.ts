import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, validateStorableText } from '../src/index.ts';

describe('validateStorableText', () => {
  it('names every value and key holding U+0000 or an unpaired surrogate, in document order', () => {
    expect(
      validateStorableText({
        content: 'a\u0000b',
        media_urls: ['https://ok.example/x.jpg', 'bad \udc00'],
        platform_options: { twitter: { 'k\u0000y': 'fine', note: ['\ud83d end'] } },
      }),
    ).toEqual([
      { field: 'content', message: 'must not contain the character U+0000 (NUL)' },
      {
        field: 'media_urls[1]',
        message: 'must not contain an unpaired UTF-16 surrogate (not valid Unicode text)',
      },
      {
        field: 'platform_options.twitter.k\\u0000y',
        message: 'is a key that must not contain the character U+0000 (NUL)',
      },
      {
        field: 'platform_options.twitter.note[0]',
        message: 'must not contain an unpaired UTF-16 surrogate (not valid Unicode text)',
      },
    ]);
  });

  it('accepts any other text, surrogate pairs (emoji) included', () => {
    expect(validateStorableText({ content: 'ok 😀 \u0001 \uffff', n: 1, b: null })).toEqual([]);
  });

  it('refuses JSON nested deeper than the database parses, whatever the depth', () => {
    let deep: unknown = 'x';
    for (let level = 0; level < 200_000; level++) deep = [deep];
    expect(validateStorableText({ options: deep })).toEqual([
      {
        field: `options${'[0]'.repeat(MAX_JSON_DEPTH)}`,
        message: `must not be nested more than ${MAX_JSON_DEPTH} levels deep`,
      },
    ]);
    let fine: unknown = 'x';
    for (let level = 0; level < MAX_JSON_DEPTH; level++) fine = { a: fine };
    expect(validateStorableText(fine)).toEqual([]);
  });
});
