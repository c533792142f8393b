export {
  type BlueskyAccount,
  type BlueskyBlob,
  type BlueskyError,
  type BlueskyPost,
  type BlueskyScript,
  type FakeBluesky,
  type FakeBlueskyOptions,
  startFakeBluesky,
} from './bluesky.ts';
export { BLUESKY_COUNTS, type BlueskyCount } from './bluesky-metrics.ts';
export {
  type DiscordApiError,
  type DiscordAttachment,
  type DiscordCall,
  type DiscordMessage,
  type DiscordScript,
  type DiscordWebhook,
  type FakeDiscord,
  type FakeDiscordOptions,
  startFakeDiscord,
} from './discord.ts';
export {
  FACEBOOK_ENGAGEMENT,
  FACEBOOK_ERRORS,
  FACEBOOK_LONG_LIVED_EXPIRES_IN,
  type FacebookCall,
  type FacebookEngagement,
  type FacebookError,
  type FacebookPage,
  type FacebookPhoto,
  type FacebookPost,
  type FacebookScript,
  type FacebookScriptMatch,
  type FacebookVideo,
  type FakeFacebook,
  type FakeFacebookOptions,
  startFakeFacebook,
} from './facebook.ts';
export {
  type FakeGoogleBusiness,
  type FakeGoogleBusinessOptions,
  GOOGLE_BUSINESS_ERRORS,
  type GoogleBusinessAccount,
  type GoogleBusinessCall,
  type GoogleBusinessError,
  type GoogleBusinessScript,
  type GoogleLocalPost,
  startFakeGoogleBusiness,
} from './google-business.ts';
export type { FakeServer, RecordedRequest } from './http.ts';
export {
  type FakeInstagram,
  type FakeInstagramOptions,
  INSTAGRAM_ERRORS,
  INSTAGRAM_INSIGHTS,
  INSTAGRAM_LONG_LIVED_EXPIRES_IN,
  type InstagramAccount,
  type InstagramCall,
  type InstagramContainer,
  type InstagramError,
  type InstagramInsight,
  type InstagramMedia,
  type InstagramScript,
  startFakeInstagram,
} from './instagram.ts';
export {
  type FakeLinkedin,
  type FakeLinkedinOptions,
  LINKEDIN_ACCESS_EXPIRES_IN,
  LINKEDIN_ERRORS,
  LINKEDIN_REFRESH_EXPIRES_IN,
  type LinkedinApiError,
  type LinkedinCall,
  type LinkedinImage,
  type LinkedinMember,
  type LinkedinOrganization,
  type LinkedinPost,
  type LinkedinPostNumber,
  type LinkedinScript,
  type LinkedinUpload,
  type LinkedinVideo,
  type LinkedinVideoPart,
  startFakeLinkedin,
} from './linkedin.ts';
export {
  type FakeMastodon,
  type FakeMastodonOptions,
  type MastodonApp,
  type MastodonError,
  type MastodonMedia,
  type MastodonScript,
  type MastodonStatus,
  startFakeMastodon,
} from './mastodon.ts';
export { MASTODON_COUNTS, type MastodonCount } from './mastodon-metrics.ts';
export {
  type MediaScript,
  type MediaServer,
  matchesPattern,
  PATTERN_MODULUS,
  startMediaServer,
} from './media-server.ts';
export {
  type ConsentQuery,
  type FakeOAuthOptions,
  FakeOAuthProvider,
  type IssuedTokens,
  type TokenAnswer,
} from './oauth.ts';
export {
  type FakePinterest,
  type FakePinterestOptions,
  PINTEREST_BOARD_ID,
  PINTEREST_ERRORS,
  PINTEREST_METRICS,
  type PinterestApiError,
  type PinterestCall,
  type PinterestMedia,
  type PinterestMetric,
  type PinterestPin,
  type PinterestScript,
  startFakePinterest,
} from './pinterest.ts';
export { derivedCount, type NumbersOf, PostNumbers } from './post-numbers.ts';
export {
  type FakeReddit,
  type FakeRedditOptions,
  type RedditCall,
  type RedditScript,
  type RedditSubmission,
  startFakeReddit,
} from './reddit.ts';
export {
  type FakeTelegram,
  type FakeTelegramOptions,
  startFakeTelegram,
  type TelegramApiError,
  type TelegramBot,
  type TelegramChat,
  type TelegramMessage,
  type TelegramScript,
} from './telegram.ts';

export {
  type FakeThreads,
  type FakeThreadsOptions,
  startFakeThreads,
  THREADS_ERRORS,
  THREADS_INSIGHTS,
  THREADS_LONG_LIVED_EXPIRES_IN,
  type ThreadsCall,
  type ThreadsContainer,
  type ThreadsError,
  type ThreadsInsight,
  type ThreadsPost,
  type ThreadsProfile,
  type ThreadsScript,
} from './threads.ts';
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
export { TIKTOK_COUNTS, type TiktokCount } from './tiktok-metrics.ts';
export {
  type FakeX,
  type FakeXOptions,
  startFakeX,
  type XMedia,
  type XProblem,
  type XScript,
  type XTweet,
} from './x.ts';
export type { XDeleting } from './x-deletes.ts';
export { X_METRIC_KEYS, type XMetricKey, type XNonPublicMode, type XReading } from './x-metrics.ts';
export {
  type FakeYoutube,
  startFakeYoutube,
  YOUTUBE_ERRORS,
  type YoutubeCall,
  type YoutubeError,
  type YoutubeScript,
  type YoutubeSession,
} from './youtube.ts';
export { YOUTUBE_STATISTICS, type YoutubeStatistic } from './youtube-metrics.ts';
