import type { Problem } from '../errors.ts';
import type { Platform, ResumeState } from '../model.ts';
import type {
  PlatformCommentsClient,
  PlatformCredentials,
  PlatformMetricsReader,
  PlatformOAuth,
  PlatformPublisher,
  PlatformRegistry,
  PlatformRemover,
  PlatformRules,
  PostDraft,
  PublishOutcome,
  PublishRequest,
} from '../ports/index.ts';
import { copy } from './memory-store.ts';

export type PublishMode = 'publish' | 'resume';

/** One scripted reaction: an outcome, an error to throw, or a function for anything smarter. */
export type ScriptStep =
  | PublishOutcome
  | Error
  | ((request: PublishRequest, mode: PublishMode) => PublishOutcome | Promise<PublishOutcome>);

export interface PublisherCall {
  mode: PublishMode;
  postId: string;
  targetId: string;
  socialAccountId: string;
  /** The target's resume state when the call was made. */
  resumeState: ResumeState | null;
  accessToken: string;
}

/**
 * A platform publisher that answers from a script, one step per call (publish or resume);
 * with the script used up it publishes successfully. Every call is recorded.
 */
export class ScriptedPublisher implements PlatformPublisher {
  readonly platform: Platform;
  readonly calls: PublisherCall[] = [];
  #steps: ScriptStep[] = [];
  #validate: (draft: PostDraft) => Problem[] = () => [];
  #preliminary: (request: PublishRequest) => Promise<void> | void = () => {};

  constructor(platform: Platform) {
    this.platform = platform;
  }

  /** Appends steps to the script. */
  script(...steps: ScriptStep[]): this {
    this.#steps.push(...steps);
    return this;
  }

  /** What each call does before its counted call (a platform's preliminary queries). */
  beforeCounted(preliminary: (request: PublishRequest) => Promise<void> | void): this {
    this.#preliminary = preliminary;
    return this;
  }

  /** Sets the platform-specific validation (default: no problems). */
  validateWith(rule: (draft: PostDraft) => Problem[]): this {
    this.#validate = rule;
    return this;
  }

  validate(draft: PostDraft): Problem[] {
    return this.#validate(draft);
  }

  publish(request: PublishRequest): Promise<PublishOutcome> {
    return this.#call('publish', request);
  }

  resume(request: PublishRequest): Promise<PublishOutcome> {
    return this.#call('resume', request);
  }

  /** Each call is one counted call: paced first, recorded once it may go to the platform. */
  async #call(mode: PublishMode, request: PublishRequest): Promise<PublishOutcome> {
    await this.#preliminary(request);
    await request.beforeCountedCall();
    this.calls.push({
      mode,
      postId: request.post.id,
      targetId: request.target.id,
      socialAccountId: request.target.socialAccountId,
      resumeState: copy(request.target.resumeState),
      accessToken: request.connection.accessToken,
    });
    const step = this.#steps.shift();
    if (step === undefined) return published(`${this.platform}-${request.target.id}`);
    if (step instanceof Error) throw step;
    if (typeof step === 'function') return step(request, mode);
    return copy(step);
  }
}

export const published = (
  platformPostId: string,
  platformUrl: string | null = null,
): PublishOutcome => ({
  kind: 'published',
  platformPostId,
  platformUrl,
});

export const failedOutcome = (
  code: string,
  message: string,
  retryable: boolean,
): PublishOutcome => ({
  kind: 'failed',
  code,
  message,
  retryable,
});

/** The platform names domain tests use by default (test data: the real list is the catalog's). */
export const TEST_PLATFORMS: readonly Platform[] = [
  'tiktok',
  'instagram',
  'youtube',
  'twitter',
  'linkedin',
  'facebook',
];

/** Rules that accept anything: a platform whose own rules a test does not exercise. */
export function permissiveRules(name: Platform): PlatformRules {
  return {
    name,
    media: {},
    optionsSchema: { type: 'object', additionalProperties: true },
    validateOptions: () => [],
  };
}

/**
 * A ScriptedPublisher for every platform (TEST_PLATFORMS by default). A platform given by name
 * gets permissive rules; give a PlatformRules (e.g. a real descriptor's) to test its rules.
 */
export class ScriptedPlatformRegistry implements PlatformRegistry {
  readonly #publishers = new Map<Platform, ScriptedPublisher>();
  readonly #rules = new Map<Platform, PlatformRules>();
  readonly #oauth = new Map<Platform, PlatformOAuth>();
  readonly #credentials = new Map<Platform, PlatformCredentials>();

  constructor(platforms: readonly (Platform | PlatformRules)[] = TEST_PLATFORMS) {
    for (const entry of platforms) {
      const rules = typeof entry === 'string' ? permissiveRules(entry) : entry;
      this.#rules.set(rules.name, rules);
      this.#publishers.set(rules.name, new ScriptedPublisher(rules.name));
    }
  }

  get names(): Platform[] {
    return [...this.#rules.keys()];
  }

  rules(platform: string): PlatformRules | undefined {
    return this.#rules.get(platform);
  }

  oauth(platform: Platform): PlatformOAuth | undefined {
    return this.#oauth.get(platform);
  }

  /** Makes a platform connectable through `connector` (e.g. a ScriptedOAuth). */
  withOAuth(connector: PlatformOAuth): this {
    this.#oauth.set(connector.platform, connector);
    return this;
  }

  credentials(platform: Platform): PlatformCredentials | undefined {
    return this.#credentials.get(platform);
  }

  readonly #metricsReaders = new Map<Platform, PlatformMetricsReader>();

  metricsReader(platform: Platform): PlatformMetricsReader | undefined {
    return this.#metricsReaders.get(platform);
  }

  /** Makes the numbers of a platform's posts readable through `reader`. */
  setMetricsReader(platform: Platform, reader: PlatformMetricsReader): void {
    this.#metricsReaders.set(platform, reader);
  }

  readonly #removers = new Map<Platform, PlatformRemover>();

  remover(platform: Platform): PlatformRemover | undefined {
    return this.#removers.get(platform);
  }

  /** Makes a platform's published posts deletable through `remover`. */
  setRemover(platform: Platform, remover: PlatformRemover): void {
    this.#removers.set(platform, remover);
  }

  readonly #commentsClients = new Map<Platform, PlatformCommentsClient>();

  commentsClient(platform: Platform): PlatformCommentsClient | undefined {
    return this.#commentsClients.get(platform);
  }

  /** Makes a platform's comments readable and answerable through `client`. */
  setCommentsClient(platform: Platform, client: PlatformCommentsClient): void {
    this.#commentsClients.set(platform, client);
  }

  /** Makes a platform connectable by credentials through `connector`. */
  withCredentials(connector: PlatformCredentials): this {
    this.#credentials.set(connector.platform, connector);
    return this;
  }

  get(platform: Platform): ScriptedPublisher | undefined {
    return this.#publishers.get(platform);
  }

  /** The publisher of a platform; throws if it was removed (a test mistake). */
  publisher(platform: Platform): ScriptedPublisher {
    const publisher = this.#publishers.get(platform);
    if (!publisher) throw new Error(`no scripted publisher for ${platform}`);
    return publisher;
  }

  remove(platform: Platform): void {
    this.#publishers.delete(platform);
  }

  /** Every call made to any publisher, in order per publisher. */
  allCalls(): PublisherCall[] {
    return [...this.#publishers.values()].flatMap((publisher) => publisher.calls);
  }
}
