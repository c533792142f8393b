// The comments half of the fake Mastodon instance: replies by other accounts under statuses
// (`addReply`, what a test makes others write), and GET /api/v1/statuses/:id/context answering
// them with ours as Mastodon does: `ancestors` (empty here) and `descendants`, every status
// below the one asked for, in thread order, each with its `account` and `in_reply_to_id`. A
// status it does not know is 404 "Record not found".

/** A reply by another account. */
export interface MastodonForeignStatus {
  id: string;
  status: string;
  inReplyToId: string;
  account: { id: string; username: string; acct: string; display_name: string };
  createdAt: string;
}

/** Our own statuses as the context needs them. */
interface OwnStatus {
  id: string;
  status: string;
  inReplyToId: string | null;
  visibility: string;
  url: string;
  createdAt?: string;
}

type Answer = { status: 200; json: unknown } | { status: number; error: string };

const escapeHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function createMastodonComments(
  own: () => OwnStatus[],
  ownAccount: { id: string; username: string; acct: string; display_name: string },
  nextId: () => string,
  baseUrl: () => string,
) {
  const foreign: MastodonForeignStatus[] = [];

  /** Another account answers `inReplyToId` (a status of ours or another reply). */
  function addReply(
    inReplyToId: string,
    text: string,
    account = {
      id: '109000000000000099',
      username: 'fan',
      acct: 'fan@elsewhere.example',
      display_name: 'A Fan',
    },
  ): MastodonForeignStatus {
    const reply: MastodonForeignStatus = {
      id: nextId(),
      status: text,
      inReplyToId,
      account,
      createdAt: new Date().toISOString(),
    };
    foreign.push(reply);
    return reply;
  }

  const knows = (id: string) => own().some((s) => s.id === id) || foreign.some((s) => s.id === id);

  const json = (status: OwnStatus | MastodonForeignStatus) => {
    const mine = !('account' in status);
    const account = 'account' in status ? status.account : ownAccount;
    const url = 'url' in status ? status.url : `${baseUrl()}/@${account.username}/${status.id}`;
    return {
      id: status.id,
      created_at: status.createdAt ?? new Date().toISOString(),
      in_reply_to_id: status.inReplyToId,
      in_reply_to_account_id: null,
      visibility: mine ? (status as OwnStatus).visibility : 'public',
      url,
      uri: url,
      content: `<p>${escapeHtml(status.status)}</p>`,
      account: { ...account, url: `${baseUrl()}/@${account.username}` },
    };
  };

  /** GET /api/v1/statuses/:id/context. */
  function context(id: string): Answer {
    if (!knows(id)) return { status: 404, error: 'Record not found' };
    const all: Array<OwnStatus | MastodonForeignStatus> = [...own(), ...foreign].sort((a, b) =>
      (a.createdAt ?? '').localeCompare(b.createdAt ?? ''),
    );
    // Everything below `id`, however deep (a reply made the same millisecond as its parent
    // may sort before it): grown until nothing more joins, then shown in time order.
    const below = new Set([id]);
    for (let grew = true; grew; ) {
      grew = false;
      for (const status of all) {
        if (status.inReplyToId !== null && below.has(status.inReplyToId) && !below.has(status.id)) {
          below.add(status.id);
          grew = true;
        }
      }
    }
    const descendants = all.filter((status) => status.id !== id && below.has(status.id)).map(json);
    return { status: 200, json: { ancestors: [], descendants } };
  }

  return { foreign, addReply, knows, context };
}
