/**
 * The conditional move of a post's status, `UPDATE ... WHERE id AND status = any(from)`. Sent as
 * a named (prepared) statement by the finalize of every published post, alone or with the
 * post's webhook deliveries: the statuses travel as one array parameter, so the text stays the
 * same whatever their number and the statement is parsed and planned once per connection.
 */
import type { PostTransition } from '@social-publisher/domain';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { preparedMark } from '../prepared.ts';
import type { Database } from '../schema.ts';

/** The UPDATE ... RETURNING id, to stand alone or in a WITH. */
export const movePostStatus = (move: PostTransition): RawBuilder<{ id: string }> => sql`
  update posts set status = ${move.to}, updated_at = ${move.at}
  where id = ${move.postId} and status = any(${move.from}::text[])
  returning id`;

/** One post's move, as the named statement `post_move`: whether it applied. */
export async function moveOne(db: Kysely<Database>, move: PostTransition): Promise<boolean> {
  return (
    (await sql`${preparedMark('post_move')}${movePostStatus(move)}`.execute(db)).rows.length > 0
  );
}

/**
 * Several posts' moves in one statement, for the finalizes of concurrent jobs (batch.ts): the
 * finalize of every published post was a statement and a commit of its own, over a third of
 * PostgreSQL's statement time when thousands of posts fall due at once. Each move keeps its
 * own statuses (joined by commas; no status holds one). The rows are locked in id order, as
 * the other shared statements lock theirs, so two of them never wait on each other in a
 * circle. Returns, per move, whether it applied.
 */
export async function movePostsStatus(
  db: Kysely<Database>,
  moves: PostTransition[],
): Promise<boolean[]> {
  const ids = moves.map((move) => move.postId);
  const { rows } = await sql<{ id: string }>`${preparedMark('post_moves')}
    with move as (
      select * from unnest(${ids}::uuid[], ${moves.map((m) => m.to)}::text[],
                           ${moves.map((m) => m.at.toISOString())}::timestamptz[],
                           ${moves.map((m) => m.from.join(','))}::text[])
        as m(id, to_status, at, from_statuses)
    ),
    locked as (
      select p.id from posts p join move on move.id = p.id
      where p.id = any(${ids}::uuid[]) and p.status = any(string_to_array(move.from_statuses, ','))
      order by p.id
      for update of p
    )
    update posts p set status = move.to_status, updated_at = move.at
    from move
    where p.id = move.id and p.id in (select id from locked)
      and p.status = any(string_to_array(move.from_statuses, ','))
    returning p.id`.execute(db);
  const moved = new Set(rows.map((row) => row.id));
  return ids.map((id) => moved.has(id));
}
