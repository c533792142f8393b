import { bluesky } from './bluesky/descriptor.ts';
import type { PlatformDescriptor } from './descriptor.ts';
import { discord } from './discord/descriptor.ts';
import { facebook } from './facebook/descriptor.ts';
import { googleBusiness } from './google-business/descriptor.ts';
import { instagram } from './instagram/descriptor.ts';
import { linkedin } from './linkedin/descriptor.ts';
import { mastodon } from './mastodon/descriptor.ts';
import { pinterest } from './pinterest/descriptor.ts';
import { reddit } from './reddit/descriptor.ts';
import { telegram } from './telegram/descriptor.ts';
import { threads } from './threads/descriptor.ts';
import { tiktok } from './tiktok/descriptor.ts';
import { twitter } from './twitter/descriptor.ts';
import { youtube } from './youtube/descriptor.ts';

/** Every platform this service publishes to: adding one is its folder and one entry here. */
export const PLATFORM_DESCRIPTORS: readonly PlatformDescriptor[] = [
  tiktok,
  instagram,
  youtube,
  twitter,
  linkedin,
  facebook,
  pinterest,
  threads,
  bluesky,
  mastodon,
  reddit,
  googleBusiness,
  telegram,
  discord,
];
