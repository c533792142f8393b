import type { Problem } from '../errors.ts';
import { PLATFORMS, type Platform, type ResumeState } from '../model.ts';
import type {
  PlatformPublisher,
  PlatformRegistry,
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

  constructor(platform: Platform) {
    this.platform = platform;
  }

  /** Appends steps to the script. */
  script(...steps: ScriptStep[]): this {
    this.#steps.push(...steps);
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

  async #call(mode: PublishMode, request: PublishRequest): Promise<PublishOutcome> {
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

/** A ScriptedPublisher for every platform (or the given ones). */
export class ScriptedPlatformRegistry implements PlatformRegistry {
  readonly #publishers = new Map<Platform, ScriptedPublisher>();

  constructor(platforms: readonly Platform[] = PLATFORMS) {
    for (const platform of platforms)
      this.#publishers.set(platform, new ScriptedPublisher(platform));
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
