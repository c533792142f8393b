/**
 * Asks a media URL what it is without downloading it (HEAD, or a ranged GET), through the same
 * SSRF guard as the publishers' fetches. For dry runs: a broken link is found before midnight,
 * not at publish time.
 */
export type MediaProbeResult =
  | { ok: true; contentType: string | null; bytes: number | null }
  | { ok: false; reason: string };

export interface MediaProbe {
  probe(url: string, signal?: AbortSignal): Promise<MediaProbeResult>;
}
