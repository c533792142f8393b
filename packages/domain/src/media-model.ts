/**
 * Hosted media (POST /media): bytes the service keeps so that platforms can pull them from a
 * public URL. The row is the truth; the bytes live in a MediaStore under `name`.
 */
export interface Media {
  id: string;
  /** The account it belongs to (personal or workspace), like a post. */
  accountId: string;
  createdBy: string;
  /**
   * The public name: 128 random bits (32 hex digits) and the type's extension. It is the whole
   * credential of the public URL, and the store's key.
   */
  name: string;
  contentType: string;
  size: number;
  /** Hex SHA-256 of the bytes, computed while they streamed in. */
  sha256: string;
  /** `?filename=` or the multipart part's file name; null when not given. */
  filename: string | null;
  createdAt: Date;
  /**
   * When the sweeper deletes it. null while a post that is not finished uses it; set again
   * (last such post's end + retention) once every post using it is finished.
   */
  expiresAt: Date | null;
}
