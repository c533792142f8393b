/**
 * The conditional move of a post's status, `UPDATE ... WHERE id AND status = any(from)`. Sent as
 * a named (prepared) statement by the finalize of every published post, alone or with the
 * post's webhook deliveries: the statuses travel as one array parameter, so the text stays the
 * same whatever their number and the statement is parsed and planned once per connection.
 */
import type { PostTransition } from '@social-publisher/domain';
import { type RawBuilder, sql } from 'kysely';

/** The UPDATE ... RETURNING id, to stand alone or in a WITH. */
export const movePostStatus = (move: PostTransition): RawBuilder<{ id: string }> => sql`
  update posts set status = ${move.to}, updated_at = ${move.at}
  where id = ${move.postId} and status = any(${move.from}::text[])
  returning id`;
