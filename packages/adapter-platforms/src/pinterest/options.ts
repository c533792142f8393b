import { isRecord, type Problem, typeName } from '@social-publisher/domain';
import { describeValue, isHttpUrl } from '../shared/options.ts';

/** Pinterest's own bounds (developers.pinterest.com "Create Pin"). */
export const PINTEREST_TITLE_MAX = 100;
export const PINTEREST_ALT_TEXT_MAX = 500;
export const PINTEREST_LINK_MAX = 2048;
/** Board ids are numeric strings; a board name or URL is the usual mistake. */
const BOARD_ID_PATTERN = /^[0-9]{1,30}$/;

const BASE = 'platform_options.pinterest';

/** `platform_options.pinterest` once validated (the adapter README maps each to the Pin field). */
export interface PinterestOptions {
  board_id: string;
  title?: string;
  link?: string;
  alt_text?: string;
  cover_image_url?: string;
}

/** JSON Schema of `platform_options.pinterest` (HTTP schema and OpenAPI). */
export const PINTEREST_OPTIONS_SCHEMA = {
  type: 'object',
  properties: {
    board_id: {
      type: 'string',
      pattern: '^[0-9]{1,30}$',
      description: 'Required: the board the Pin is saved to (its numeric id)',
    },
    title: {
      type: 'string',
      maxLength: PINTEREST_TITLE_MAX,
      description: 'At most 100 characters',
    },
    link: {
      type: 'string',
      maxLength: PINTEREST_LINK_MAX,
      description: 'Where the Pin leads (an http(s) URL)',
    },
    alt_text: {
      type: 'string',
      maxLength: PINTEREST_ALT_TEXT_MAX,
      description: 'Image description for screen readers, at most 500 characters',
    },
    cover_image_url: {
      type: 'string',
      maxLength: PINTEREST_LINK_MAX,
      description: 'Videos only: the cover image (default: the first frame)',
    },
  },
  additionalProperties: false,
} as const;

const KNOWN_KEYS = new Set(Object.keys(PINTEREST_OPTIONS_SCHEMA.properties));

/**
 * Checks `platform_options.pinterest` when it is given. That a post to Pinterest names a board
 * at all is the publisher's rule (validatePinterest), since the options may be absent.
 */
export function validatePinterestOptions(value: Record<string, unknown>): Problem[] {
  const problems: Problem[] = [];
  for (const key of Object.keys(value)) {
    if (!KNOWN_KEYS.has(key)) {
      problems.push({ field: `${BASE}.${key}`, message: 'is not a known Pinterest option' });
    }
  }
  const boardId = value.board_id;
  if (boardId !== undefined && (typeof boardId !== 'string' || !BOARD_ID_PATTERN.test(boardId))) {
    problems.push({
      field: `${BASE}.board_id`,
      message: `must be the board's numeric id as a string, got ${describeValue(boardId)}`,
    });
  }
  problems.push(...text(value, 'title', PINTEREST_TITLE_MAX));
  problems.push(...text(value, 'alt_text', PINTEREST_ALT_TEXT_MAX));
  for (const key of ['link', 'cover_image_url'] as const) {
    problems.push(...text(value, key, PINTEREST_LINK_MAX));
    const url = value[key];
    if (typeof url === 'string' && !isHttpUrl(url)) {
      problems.push({ field: `${BASE}.${key}`, message: 'must be an absolute http(s) URL' });
    }
  }
  return problems;
}

/** The board of a post's options, when it names one. */
export function boardIdOf(options: Record<string, unknown> | undefined): string | undefined {
  const own = options?.pinterest;
  const boardId = isRecord(own) ? own.board_id : undefined;
  return typeof boardId === 'string' && boardId !== '' ? boardId : undefined;
}

function text(value: Record<string, unknown>, key: string, max: number): Problem[] {
  const option = value[key];
  if (option === undefined) return [];
  if (typeof option !== 'string') {
    return [{ field: `${BASE}.${key}`, message: `must be a string, got ${typeName(option)}` }];
  }
  if (Array.from(option).length > max) {
    return [{ field: `${BASE}.${key}`, message: `is limited to ${max} characters` }];
  }
  return [];
}
