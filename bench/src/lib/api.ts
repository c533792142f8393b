/** The API on a benchmark's backend: the runtime of its role and buildApp, on a free port. */
import { buildApp } from '@social-publisher/app-http';
import type { Config } from '@social-publisher/config';
import { createRuntime, type Runtime } from '@social-publisher/runtime';
import type pino from 'pino';
import type { Mode } from './infra.ts';

export interface RunningApi {
  runtime: Runtime;
  /** http://127.0.0.1:<port> */
  origin: string;
  close(): Promise<void>;
}

export async function startApi(
  mode: Mode,
  config: Config,
  logger: pino.Logger,
): Promise<RunningApi> {
  const runtime = await createRuntime(config, logger, {
    role: mode === 'production' ? 'api' : 'embedded',
  });
  let app: Awaited<ReturnType<typeof buildApp>> | undefined;
  try {
    app = await buildApp({
      deps: runtime.deps,
      checks: runtime.checks,
      queueKind: runtime.queueKind,
      config,
      logger,
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no address');
    const started = app;
    return {
      runtime,
      origin: `http://127.0.0.1:${address.port}`,
      close: async () => {
        await started.close();
        await runtime.close();
      },
    };
  } catch (error) {
    await app?.close();
    await runtime.close();
    throw error;
  }
}
