/**
 * The five settings every platform has (docs/connect.md#configuration): the app's client id and secret
 * and three hosts, so that tests point them at local fakes. Paths on each host are the
 * platform's real paths.
 */
export function oauthSettings<const P extends string>(
  prefix: P,
  hosts: { auth: string; token: string; api: string },
  aliases: { clientId?: readonly string[]; tokenBaseUrl?: readonly string[] } = {},
) {
  return {
    clientId: {
      env: `${prefix}_CLIENT_ID`,
      ...(aliases.clientId ? { aliases: aliases.clientId } : {}),
      kind: 'string',
      requiredWith: 'clientSecret',
      description: "The app's OAuth client id (connecting accounts, refreshing tokens)",
    },
    clientSecret: {
      env: `${prefix}_CLIENT_SECRET`,
      kind: 'string',
      requiredWith: 'clientId',
      description: "The app's OAuth client secret",
    },
    authBaseUrl: {
      env: `${prefix}_AUTH_BASE_URL`,
      kind: 'url',
      default: hosts.auth,
      description: 'Host of the consent page the browser is sent to',
    },
    tokenBaseUrl: {
      env: `${prefix}_TOKEN_BASE_URL`,
      ...(aliases.tokenBaseUrl ? { aliases: aliases.tokenBaseUrl } : {}),
      kind: 'url',
      default: hosts.token,
      description: 'Host of the token endpoint (code exchange, refresh)',
    },
    apiBaseUrl: {
      env: `${prefix}_API_BASE_URL`,
      kind: 'url',
      default: hosts.api,
      description: 'Host of the API (identity, publishing)',
    },
  } as const;
}
