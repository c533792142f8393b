export { type AddressCheck, checkAddress, isIpLiteral, normalizeIp } from './check-address.ts';
export {
  type ConnectorOptions,
  createGuardedConnector,
  createGuardedDispatcher,
  type GuardedDispatcherOptions,
  type GuardLogger,
  type GuardOptions,
  type ResolvedAddress,
  type Resolver,
  resolveAndCheck,
  systemResolver,
} from './dispatcher.ts';
export {
  AddressRefusedError,
  findRefusal,
  HostResolutionError,
  refusalReasons,
} from './errors.ts';
export { assertUrlAllowed, checkUrl, type UrlCheck, type UrlPolicy } from './url.ts';
