import type {
  PlatformCommentsClient,
  PlatformCredentials,
  PlatformMediaRules,
  PlatformMetricsReader,
  PlatformOAuth,
  PlatformPublisher,
  PlatformRemover,
  PlatformRules,
  PlatformSettingSpec,
} from '@social-publisher/domain';
import type { PublisherRuntime } from './publisher-runtime.ts';

/**
 * One setting a platform reads from the environment. packages/config reads and validates
 * every setting of every descriptor (one clear line per bad value); the publisher receives
 * the values under the same keys.
 */
export interface PlatformSetting extends PlatformSettingSpec {
  /** What it does, in one line: README.md, this package's README and .env.example show it. */
  description: string;
  /** A value `.env.example` shows for a setting without a default. */
  example?: string;
}

export type PlatformSettingsSpec = Readonly<Record<string, PlatformSetting>>;

/** The values of a settings spec: a string where a default exists, else maybe undefined. */
export type SettingsOf<S extends PlatformSettingsSpec> = {
  readonly [K in keyof S]: S[K] extends { default: string } ? string : string | undefined;
};

/** The settings of every platform, by platform name (what config hands the registry). */
export type PlatformSettingValues = Readonly<
  Record<string, Readonly<Record<string, string | undefined>>>
>;

/** What a platform's folder declares (see any `<platform>/descriptor.ts`). */
export interface PlatformDefinition<S extends PlatformSettingsSpec> {
  readonly name: string;
  /** How people write it (messages, docs). */
  readonly label: string;
  readonly media: PlatformMediaRules;
  readonly contentMaxLength?: number;
  /** The platform's own character count, when not code points (see PlatformRules). */
  readonly contentLength?: (content: string) => number;
  /** Whether its publisher posts a `thread` (replies) and a `first_comment` (see PlatformRules). */
  readonly replies?: boolean;
  readonly comments?: boolean;
  /**
   * Extra fields of POST /social-accounts/connect (name -> JSON Schema) and which are required:
   * the schema shows them, the connector's `prepare` reads them (see PlatformRules).
   */
  readonly connect?: PlatformRules['connectFields'];
  /** `platform_options.<name>`: its JSON Schema and the rule (default: anything goes). */
  readonly options?: {
    schema: Readonly<Record<string, unknown>>;
    validate?: PlatformRules['validateOptions'];
  };
  readonly settings: S;
  createPublisher(settings: SettingsOf<S>, runtime: PublisherRuntime): PlatformPublisher;
  /** How an account is connected (consent URL, code exchange, identity, token renewal). */
  createOAuth?(settings: SettingsOf<S>, runtime: PublisherRuntime): PlatformOAuth;
  /**
   * How an account is connected by its credentials instead (fields taken by POST
   * /social-accounts, traded for tokens, token renewal): no consent page.
   */
  createCredentials?(settings: SettingsOf<S>, runtime: PublisherRuntime): PlatformCredentials;
  /** How the numbers of its published posts are read (absent: they are not). */
  createMetricsReader?(settings: SettingsOf<S>, runtime: PublisherRuntime): PlatformMetricsReader;
  /** How its published posts are deleted (absent: unpublish answers `unsupported`). */
  createRemover?(settings: SettingsOf<S>, runtime: PublisherRuntime): PlatformRemover;
  /** How the comments under its posts are read and answered (absent: `unsupported`). */
  createCommentsClient?(settings: SettingsOf<S>, runtime: PublisherRuntime): PlatformCommentsClient;
}

/**
 * Everything about one platform, declared once in its folder: its rules (media, content,
 * `platform_options`), its settings, and how to build its publisher. The list in
 * `platforms.ts` is the only other place a platform is named.
 */
export interface PlatformDescriptor {
  readonly name: string;
  readonly label: string;
  readonly rules: PlatformRules;
  readonly settings: PlatformSettingsSpec;
  createPublisher(
    settings: Readonly<Record<string, string | undefined>>,
    runtime: PublisherRuntime,
  ): PlatformPublisher;
  createOAuth?(
    settings: Readonly<Record<string, string | undefined>>,
    runtime: PublisherRuntime,
  ): PlatformOAuth;
  createCredentials?(
    settings: Readonly<Record<string, string | undefined>>,
    runtime: PublisherRuntime,
  ): PlatformCredentials;
  createMetricsReader?(
    settings: Readonly<Record<string, string | undefined>>,
    runtime: PublisherRuntime,
  ): PlatformMetricsReader;
  createRemover?(
    settings: Readonly<Record<string, string | undefined>>,
    runtime: PublisherRuntime,
  ): PlatformRemover;
  createCommentsClient?(
    settings: Readonly<Record<string, string | undefined>>,
    runtime: PublisherRuntime,
  ): PlatformCommentsClient;
}

/** Options of a platform that documents none: any object. */
const OPEN_OPTIONS = { type: 'object', additionalProperties: true } as const;

/** Declares a platform; the generic ties the publisher's settings to its spec. */
export function definePlatform<S extends PlatformSettingsSpec>(
  definition: PlatformDefinition<S>,
): PlatformDescriptor {
  const { name, label, media, contentMaxLength, contentLength, options, settings } = definition;
  const { replies, comments, connect } = definition;
  return {
    name,
    label,
    rules: {
      name,
      media,
      ...(contentMaxLength === undefined ? {} : { contentMaxLength }),
      ...(contentLength === undefined ? {} : { contentLength }),
      ...(replies ? { replies } : {}),
      ...(comments ? { comments } : {}),
      ...(connect ? { connectFields: connect } : {}),
      optionsSchema: options?.schema ?? OPEN_OPTIONS,
      validateOptions: options?.validate ?? (() => []),
    },
    settings,
    // The config reader filled every key of `settings` from this very spec.
    createPublisher: (values, runtime) =>
      definition.createPublisher(values as SettingsOf<S>, runtime),
    ...(definition.createOAuth
      ? {
          createOAuth: (
            values: Readonly<Record<string, string | undefined>>,
            runtime: PublisherRuntime,
          ) => definition.createOAuth?.(values as SettingsOf<S>, runtime) as PlatformOAuth,
        }
      : {}),
    ...(definition.createCredentials
      ? {
          createCredentials: (
            values: Readonly<Record<string, string | undefined>>,
            runtime: PublisherRuntime,
          ) =>
            definition.createCredentials?.(values as SettingsOf<S>, runtime) as PlatformCredentials,
        }
      : {}),
    ...(definition.createMetricsReader
      ? {
          createMetricsReader: (
            values: Readonly<Record<string, string | undefined>>,
            runtime: PublisherRuntime,
          ) =>
            definition.createMetricsReader?.(
              values as SettingsOf<S>,
              runtime,
            ) as PlatformMetricsReader,
        }
      : {}),
    ...(definition.createRemover
      ? {
          createRemover: (
            values: Readonly<Record<string, string | undefined>>,
            runtime: PublisherRuntime,
          ) => definition.createRemover?.(values as SettingsOf<S>, runtime) as PlatformRemover,
        }
      : {}),
    ...(definition.createCommentsClient
      ? {
          createCommentsClient: (
            values: Readonly<Record<string, string | undefined>>,
            runtime: PublisherRuntime,
          ) =>
            definition.createCommentsClient?.(
              values as SettingsOf<S>,
              runtime,
            ) as PlatformCommentsClient,
        }
      : {}),
  };
}
