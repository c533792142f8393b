// The storage settings added for history and read scaling: a read replica (off unless given)
// with its lag bound, and the retention of finished posts (off unless given).
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/index.ts';

describe('storage settings', () => {
  it('defaults: no replica (2 s lag bound when one is given), finished posts kept', () => {
    const config = loadConfig({});
    expect(config.databaseReplicaUrl).toBeNull();
    expect(config.databaseReplicaMaxLagMs).toBe(2_000);
    expect(config.postsRetentionDays).toBeNull();
  });

  it('reads a replica URL, its lag bound and a retention in days', () => {
    const config = loadConfig({
      DATABASE_REPLICA_URL: 'postgres://reader@replica:5432/sp',
      DATABASE_REPLICA_MAX_LAG_MS: '500',
      POSTS_RETENTION_DAYS: '90',
    });
    expect(config.databaseReplicaUrl).toBe('postgres://reader@replica:5432/sp');
    expect(config.databaseReplicaMaxLagMs).toBe(500);
    expect(config.postsRetentionDays).toBe(90);
  });
});
