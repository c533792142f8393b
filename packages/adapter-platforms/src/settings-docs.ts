/**
 * The platforms' settings as the docs show them, rendered from the descriptors' own setting
 * descriptions so that README.md, this package's README and .env.example cannot drift from
 * what config reads. `pnpm docs:generate` writes them; a test fails when they are stale.
 */
import type { PlatformDescriptor, PlatformSetting } from './descriptor.ts';

/** The keys `oauthSettings` gives every platform that connects through OAuth. */
const CLIENT = ['clientId', 'clientSecret'] as const;
const HOSTS = [
  ['authBaseUrl', 'consent host'],
  ['tokenBaseUrl', 'token host'],
  ['apiBaseUrl', 'API host'],
] as const;
const NAMED = new Set<string>([...CLIENT, ...HOSTS.map(([key]) => key)]);

const code = (text: string): string => `\`${text}\``;

/** A setting's variable, with its older names. */
const variable = (setting: PlatformSetting): string =>
  setting.aliases?.length
    ? `${code(setting.env)} (or ${setting.aliases.map(code).join(', ')})`
    : code(setting.env);

/** One cell: the variable, and its default where the table shows defaults. */
function cell(setting: PlatformSetting | undefined, defaults: boolean): string {
  if (!setting) return '';
  return defaults && setting.default !== undefined
    ? `${variable(setting)} = ${setting.default}`
    : variable(setting);
}

/** The platform's own settings beyond credentials and hosts. */
function more(descriptor: PlatformDescriptor, defaults: boolean): string {
  return Object.entries(descriptor.settings)
    .filter(([key]) => !NAMED.has(key))
    .map(([, setting]) =>
      defaults ? `${cell(setting, true)}: ${setting.description}` : variable(setting),
    )
    .join('; ');
}

/** A Markdown table padded the way the formatter writes it. */
export function markdownTable(header: readonly string[], rows: readonly string[][]): string {
  const widths = header.map((title, column) =>
    Math.max(3, title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    `| ${cells.map((text, column) => text.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join(
    '\n',
  );
}

/** The table of every platform's variables; `defaults` adds each default and description. */
export function platformSettingsTable(
  descriptors: readonly PlatformDescriptor[],
  options: { defaults: boolean },
): string {
  const header = [
    'platform',
    'app credentials',
    ...HOSTS.map(([, title]) => title),
    options.defaults ? 'more (default: what it does)' : 'more',
  ];
  const rows = descriptors.map((descriptor) => [
    descriptor.name,
    CLIENT.map((key) => descriptor.settings[key])
      .filter((setting) => setting !== undefined)
      .map((setting) => cell(setting, false))
      .join(', '),
    ...HOSTS.map(([key]) => cell(descriptor.settings[key], options.defaults)),
    more(descriptor, options.defaults),
  ]);
  return markdownTable(header, rows);
}

/** `.env.example`'s platform lines: what each variable does, then it commented out. */
export function platformEnvExample(descriptors: readonly PlatformDescriptor[]): string {
  const lines: string[] = [];
  for (const descriptor of descriptors) {
    for (const setting of Object.values(descriptor.settings)) {
      const value = setting.default ?? setting.example ?? '';
      const fallback =
        setting.default === undefined ? 'default unset' : `default ${setting.default}`;
      lines.push(`# ${descriptor.label}: ${setting.description} (${fallback}).`);
      lines.push(`# ${setting.env}=${value}`);
      for (const alias of setting.aliases ?? []) {
        lines.push(`# Older name of ${setting.env}, read when that is unset.`);
        lines.push(`# ${alias}=${value}`);
      }
    }
  }
  return lines.join('\n');
}

/** The generated blocks, each between a start and an end marker in its file. */
export interface GeneratedBlock {
  /** Path from the repository root. */
  file: string;
  start: string;
  end: string;
  content: string;
}

export function settingsDocBlocks(descriptors: readonly PlatformDescriptor[]): GeneratedBlock[] {
  const markdown = (name: string) => ({
    start: `<!-- generated: ${name} (pnpm docs:generate) -->`,
    end: `<!-- end generated: ${name} -->`,
  });
  return [
    {
      file: 'README.md',
      ...markdown('platform settings'),
      content: platformSettingsTable(descriptors, { defaults: false }),
    },
    {
      file: 'packages/adapter-platforms/README.md',
      ...markdown('platform settings'),
      content: platformSettingsTable(descriptors, { defaults: true }),
    },
    {
      file: '.env.example',
      start: '# (generated from the platforms: pnpm docs:generate)',
      end: '# (end of generated platform settings)',
      content: platformEnvExample(descriptors),
    },
  ];
}

/** `text` with the block's content put between its markers; null when a marker is missing. */
export function withBlock(text: string, block: GeneratedBlock): string | null {
  const start = text.indexOf(block.start);
  const end = text.indexOf(block.end);
  if (start < 0 || end < start) return null;
  const before = text.slice(0, start + block.start.length);
  const markdown = block.file.endsWith('.md');
  const gap = markdown ? '\n\n' : '\n';
  return `${before}${gap}${block.content}${gap}${text.slice(end)}`;
}
