import type { ApiKey } from '@social-publisher/domain';
import { type Static, Type } from 'typebox';
import { Nullable, Timestamp, Uuid } from './common.ts';

export const ApiKeySchema = Type.Object({
  id: Uuid(),
  name: Type.String(),
  key_prefix: Type.String({ description: 'First characters of the key, for recognising it' }),
  workspace_id: Nullable(Uuid('The team that owns the key; null for a personal key')),
  created_by: Uuid(),
  created_at: Timestamp(),
  last_used_at: Nullable(Timestamp()),
});

export const CreatedApiKeySchema = Type.Object({
  id: Uuid(),
  name: Type.String(),
  key: Type.String({ description: 'The raw key. Shown only in this response: store it now.' }),
  key_prefix: Type.String(),
  workspace_id: Nullable(Uuid()),
  created_at: Timestamp(),
});

/** A personal key belongs to the account whose id is its creator's: no workspace. */
const workspaceOf = (key: ApiKey): string | null =>
  key.accountId === key.createdBy ? null : key.accountId;

export function presentApiKey(key: ApiKey): Static<typeof ApiKeySchema> {
  return {
    id: key.id,
    name: key.name,
    key_prefix: key.keyPrefix,
    workspace_id: workspaceOf(key),
    created_by: key.createdBy,
    created_at: key.createdAt.toISOString(),
    last_used_at: key.lastUsedAt ? key.lastUsedAt.toISOString() : null,
  };
}

export function presentCreatedApiKey(
  key: ApiKey,
  rawKey: string,
): Static<typeof CreatedApiKeySchema> {
  return {
    id: key.id,
    name: key.name,
    key: rawKey,
    key_prefix: key.keyPrefix,
    workspace_id: workspaceOf(key),
    created_at: key.createdAt.toISOString(),
  };
}
