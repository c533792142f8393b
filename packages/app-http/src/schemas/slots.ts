/** A connection's posting slots. */
import { MAX_SLOTS, MAX_TIMEZONE_LENGTH, SLOT_DAYS, type SlotSet } from '@social-publisher/domain';
import { type Static, Type } from 'typebox';
import { Timestamp, Uuid } from './common.ts';

const SlotSchema = Type.Object(
  {
    day: Type.Enum([...SLOT_DAYS]),
    time: Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: 'HH:MM, 24 h' }),
  },
  { additionalProperties: false },
);

export const SlotsBody = Type.Object(
  {
    timezone: Type.String({
      minLength: 1,
      maxLength: MAX_TIMEZONE_LENGTH,
      description: 'IANA timezone of the times, e.g. Europe/Berlin (DST is followed)',
    }),
    slots: Type.Array(SlotSchema, {
      maxItems: MAX_SLOTS,
      description: 'Weekly times; an empty list removes every slot',
    }),
  },
  { additionalProperties: false },
);

export const SlotSetSchema = Type.Object(
  {
    social_account_id: Uuid(),
    timezone: Type.String(),
    slots: Type.Array(SlotSchema, { description: 'In week order, Monday first' }),
    updated_at: Timestamp(),
  },
  { description: "A connection's posting slots" },
);

export function presentSlots(set: SlotSet): Static<typeof SlotSetSchema> {
  return {
    social_account_id: set.socialAccountId,
    timezone: set.timezone,
    slots: set.slots.map(({ day, time }) => ({ day, time })),
    updated_at: set.updatedAt.toISOString(),
  };
}
