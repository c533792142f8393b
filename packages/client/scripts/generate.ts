/**
 * Regenerates src/schema.ts from the document the API serves:
 *   pnpm client:generate   (or pnpm --filter @social-publisher/client generate)
 */
import { writeFileSync } from 'node:fs';
import { renderSchema, SCHEMA_FILE, SCHEMA_PATH } from './render-schema.ts';
import { fetchServedDocument } from './served-document.ts';

const schema = await renderSchema(await fetchServedDocument());
writeFileSync(SCHEMA_PATH, schema);
process.stdout.write(`wrote ${SCHEMA_FILE}\n`);
