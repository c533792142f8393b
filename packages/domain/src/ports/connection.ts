import type { Platform, PlatformData } from '../model.ts';

/** A connection's credentials, decrypted for the duration of one publish. */
export interface PublishConnection {
  id: string;
  platform: Platform;
  externalId: string;
  accessToken: string;
  refreshToken: string | null;
  tokenExpiresAt: Date | null;
  /** What the connector stored about the connection (its instance...); null: nothing. */
  platformData: PlatformData | null;
}
