/** What a process runs: the API, a worker, or both in one process (embedded mode). */
export type RuntimeRole = 'api' | 'worker' | 'embedded';
