/**
 * A post's conditional status change (`transitionStatus`): the changes of one moment share one
 * statement. Every finished post without webhooks to notify makes one (finalizePost); made one
 * by one, each was its own commit, and under a mixed load of creating and publishing their WAL
 * flushes were the largest share of what the statements waited on.
 */
import type { PostRepository, PostStatus } from '@social-publisher/domain';
import { type Kysely, sql } from 'kysely';
import { BATCH_MAX, batchedOrDirect, type StatementSharing } from '../batch.ts';
import { preparedMark } from '../prepared.ts';
import type { Database } from '../schema.ts';

interface TransitionInput {
  id: string;
  from: readonly PostStatus[];
  to: PostStatus;
  at: Date;
}

/** Applies each change whose post is in one of its `from` statuses; true where it applied. */
async function transitionMany(db: Kysely<Database>, inputs: TransitionInput[]): Promise<boolean[]> {
  // Statuses are plain words: a comma-joined list travels in one JSON field per row.
  const rows = JSON.stringify(
    inputs.map(({ id, from, to, at }) => ({
      id,
      from_statuses: from.join(','),
      to_status: to,
      at: at.toISOString(),
    })),
  );
  const { rows: changed } = await sql<{ id: string }>`${preparedMark('posts_transition')}
    update posts set status = r.to_status, updated_at = r.at
    from json_to_recordset(${rows}::json) as r(id uuid, from_statuses text, to_status text, at timestamptz)
    where posts.id = r.id and posts.status = any(string_to_array(r.from_statuses, ','))
    returning posts.id`.execute(db);
  const applied = new Set(changed.map((row) => row.id));
  return inputs.map((input) => applied.has(input.id));
}

export function postTransitions(
  db: Kysely<Database>,
  options: StatementSharing,
): Pick<PostRepository, 'transitionStatus'> {
  // The same post twice never shares a statement: the second change sees the first's result.
  const transition = batchedOrDirect(options, {
    keyOf: (input: TransitionInput) => input.id,
    maxSize: BATCH_MAX,
    run: (inputs) => transitionMany(db, inputs),
  });
  return {
    async transitionStatus(id, from, to, at): Promise<boolean> {
      if (from.length === 0) return false;
      return transition({ id, from, to, at });
    },
  };
}
