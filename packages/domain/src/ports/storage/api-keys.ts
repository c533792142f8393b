import type { ApiKey } from '../../model.ts';

export interface ApiKeyRepository {
  insert(key: ApiKey): Promise<void>;
  findById(id: string): Promise<ApiKey | null>;
  findByHash(keyHash: string): Promise<ApiKey | null>;
  listByAccount(accountId: string): Promise<ApiKey[]>;
  countByAccount(accountId: string): Promise<number>;
  delete(id: string): Promise<boolean>;
  touchLastUsed(id: string, at: Date): Promise<void>;
}
