// X counts characters its own way (twitter-text "weighted length"): URLs 23 whatever their
// length, most CJK characters and emoji 2, the rest 1; a post is at most 280.
import { createRequire } from 'node:module';

// twitter-text is CommonJS without named exports Node can see: loaded through require.
const twitterText = createRequire(import.meta.url)('twitter-text') as typeof import('twitter-text');

export const X_MAX_WEIGHTED_LENGTH = 280;

export const weightedLength = (text: string): number => twitterText.parseTweet(text).weightedLength;
