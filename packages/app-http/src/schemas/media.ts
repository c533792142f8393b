import { type Media, mediaUrlOf } from '@social-publisher/domain';
import { Type } from 'typebox';
import { Nullable, Timestamp, Uuid } from './common.ts';

export const MediaSchema = Type.Object(
  {
    id: Uuid(),
    url: Type.String({
      description:
        'Public URL (PUBLIC_BASE_URL/m/<name>, 128 random bits): no credential, Range and HEAD supported; put it in media_urls',
    }),
    content_type: Type.String(),
    size: Type.Integer({ minimum: 0, description: 'Bytes' }),
    sha256: Type.String({ description: 'Hex SHA-256 of the bytes' }),
    filename: Nullable(Type.String({ description: '?filename= or the part file name' })),
    created_at: Timestamp(),
    expires_at: Nullable(
      Timestamp(
        'When it is deleted; null while a post that is not finished uses it (then MEDIA_RETENTION_DAYS after its last post ends)',
      ),
    ),
  },
  { description: 'A hosted media' },
);

export function presentMedia(media: Media, publicBaseUrl: string) {
  return {
    id: media.id,
    url: mediaUrlOf(publicBaseUrl, media.name),
    content_type: media.contentType,
    size: media.size,
    sha256: media.sha256,
    filename: media.filename,
    created_at: media.createdAt.toISOString(),
    expires_at: media.expiresAt?.toISOString() ?? null,
  };
}
