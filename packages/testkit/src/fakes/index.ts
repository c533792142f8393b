export type { FakeServer, RecordedRequest } from './http.ts';
export {
  type FakeInstagram,
  type FakeInstagramOptions,
  INSTAGRAM_ERRORS,
  type InstagramCall,
  type InstagramContainer,
  type InstagramError,
  type InstagramMedia,
  type InstagramScript,
  startFakeInstagram,
} from './instagram.ts';
export {
  type MediaScript,
  type MediaServer,
  matchesPattern,
  PATTERN_MODULUS,
  startMediaServer,
} from './media-server.ts';
export {
  type FakeTiktok,
  type FakeTiktokOptions,
  startFakeTiktok,
  TIKTOK_ERRORS,
  type TiktokCreator,
  type TiktokErrorCode,
  type TiktokPublish,
  type TiktokScript,
} from './tiktok.ts';
export {
  type FakeYoutube,
  startFakeYoutube,
  YOUTUBE_ERRORS,
  type YoutubeCall,
  type YoutubeError,
  type YoutubeScript,
  type YoutubeSession,
} from './youtube.ts';
