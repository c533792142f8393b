// `platform_options.google_business`: a button under the post and the post's language
// (developers.google.com/my-business/reference/rest/v4/accounts.locations.localPosts:
// CallToAction, LocalPost.languageCode).
import { isRecord, type Problem, typeName } from '@social-publisher/domain';
import { describeValue, isHttpUrl } from '../shared/options.ts';

/** A post's summary (the content) is at most 1,500 characters. */
export const GOOGLE_BUSINESS_SUMMARY_MAX = 1_500;
export const ACTION_TYPES = ['BOOK', 'ORDER', 'SHOP', 'LEARN_MORE', 'SIGN_UP', 'CALL'] as const;
export type ActionType = (typeof ACTION_TYPES)[number];
/** The post's language when none is given. */
export const DEFAULT_LANGUAGE = 'en';
const URL_MAX = 2048;
/** A BCP 47 tag: en, en-US, pt-BR, zh-Hant-TW. */
const LANGUAGE_PATTERN = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}$/;

const BASE = 'platform_options.google_business';

/** JSON Schema of `platform_options.google_business` (HTTP schema and OpenAPI). */
export const GOOGLE_BUSINESS_OPTIONS_SCHEMA = {
  type: 'object',
  properties: {
    call_to_action: {
      type: 'object',
      description: 'A button under the post',
      properties: {
        action_type: {
          type: 'string',
          enum: [...ACTION_TYPES],
          description: 'Required: what the button says; CALL dials the location’s phone number',
        },
        url: {
          type: 'string',
          maxLength: URL_MAX,
          description:
            'Where the button leads (an http(s) URL); required unless CALL, which takes none',
        },
      },
      additionalProperties: false,
    },
    language_code: {
      type: 'string',
      maxLength: 35,
      description: `The post's language as a BCP 47 tag (default ${DEFAULT_LANGUAGE})`,
    },
  },
  additionalProperties: false,
} as const;

const KNOWN_KEYS = new Set(Object.keys(GOOGLE_BUSINESS_OPTIONS_SCHEMA.properties));

/** The options as the publisher reads them (validated at create). */
export interface GoogleBusinessOptions {
  callToAction: { actionType: ActionType; url: string | undefined } | undefined;
  languageCode: string;
}

export function googleBusinessOptionsOf(
  all: Record<string, unknown> | undefined,
): GoogleBusinessOptions {
  const own = isRecord(all?.google_business) ? all.google_business : {};
  const cta = isRecord(own.call_to_action) ? own.call_to_action : undefined;
  const actionType = ACTION_TYPES.find((type) => type === cta?.action_type);
  return {
    callToAction:
      actionType === undefined
        ? undefined
        : { actionType, url: typeof cta?.url === 'string' ? cta.url : undefined },
    languageCode: typeof own.language_code === 'string' ? own.language_code : DEFAULT_LANGUAGE,
  };
}

export function validateGoogleBusinessOptions(value: Record<string, unknown>): Problem[] {
  const problems: Problem[] = [];
  for (const key of Object.keys(value)) {
    if (!KNOWN_KEYS.has(key)) {
      problems.push({ field: `${BASE}.${key}`, message: 'is not a known Google Business option' });
    }
  }
  const language = value.language_code;
  if (
    language !== undefined &&
    (typeof language !== 'string' || !LANGUAGE_PATTERN.test(language))
  ) {
    problems.push({
      field: `${BASE}.language_code`,
      message: `must be a BCP 47 language tag such as en or pt-BR, got ${describeValue(language)}`,
    });
  }
  if (value.call_to_action !== undefined)
    problems.push(...callToActionProblems(value.call_to_action));
  return problems;
}

function callToActionProblems(cta: unknown): Problem[] {
  const field = `${BASE}.call_to_action`;
  if (!isRecord(cta)) return [{ field, message: `must be an object, got ${typeName(cta)}` }];
  const problems: Problem[] = [];
  for (const key of Object.keys(cta)) {
    if (key !== 'action_type' && key !== 'url') {
      problems.push({ field: `${field}.${key}`, message: 'is not a known call-to-action field' });
    }
  }
  const { action_type: actionType, url } = cta;
  if (!ACTION_TYPES.includes(actionType as ActionType)) {
    problems.push({
      field: `${field}.action_type`,
      message: `is required: one of ${ACTION_TYPES.join(', ')}${actionType === undefined ? '' : `, got ${describeValue(actionType)}`}`,
    });
  }
  if (actionType === 'CALL') {
    if (url !== undefined) {
      problems.push({
        field: `${field}.url`,
        message: 'must be left out for CALL (Google dials the location)',
      });
    }
  } else if (url === undefined) {
    problems.push({ field: `${field}.url`, message: 'is required for this action type' });
  } else if (typeof url !== 'string' || !isHttpUrl(url) || url.length > URL_MAX) {
    problems.push({
      field: `${field}.url`,
      message: `must be an absolute http(s) URL of at most ${URL_MAX} characters`,
    });
  }
  return problems;
}
