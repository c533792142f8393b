/**
 * Values generated from the JSON Schemas of the OpenAPI document: mostly what the schema
 * describes (so requests reach the use cases), sometimes not (wrong types, extra properties,
 * hostile strings), so that every answer, not only the happy one, is checked.
 */
import fc from 'fast-check';

export type Schema = Record<string, unknown>;

/** Strings no client should be able to break the server with. */
export interface HostileStrings {
  /** U+0000, which PostgreSQL cannot store in text. */
  nul: boolean;
  /** Unpaired UTF-16 surrogates (JSON can carry them as \ud800 escapes). */
  loneSurrogates: boolean;
}

export interface GeneratorOptions {
  /** Ids of existing resources: formats `uuid` and path ids draw from them. */
  ids: readonly string[];
  hostile: HostileStrings;
}

/** Texts beyond the schema: unicode of every kind, huge, and the hostile ones allowed. */
export function wildString(options: GeneratorOptions): fc.Arbitrary<string> {
  const { hostile } = options;
  const pieces: Array<fc.Arbitrary<string>> = [
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.string({ unit: 'grapheme', maxLength: 20 }),
    fc.constantFrom(
      '',
      ' ',
      'é',
      '🙂👍🏽',
      '\u202Eevil',
      'ｆｕｌｌ',
      '%',
      '..',
      '\\',
      "'--",
      '<b>',
    ),
    fc.constantFrom(5_001, 70_000).map((length) => 'x'.repeat(length)),
  ];
  if (hostile.nul) pieces.push(fc.constantFrom('\u0000', 'a\u0000b', '\u0000'.repeat(3)));
  if (hostile.loneSurrogates) pieces.push(fc.constantFrom('\ud800', 'a\udc00b', '\udfff\ud800'));
  return fc.oneof(...pieces);
}

/** Anything JSON can hold, for a value of the wrong type. */
function wrongValue(options: GeneratorOptions): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.constantFrom(null, true, false, 0, -1, 1.5, 1e308, [], {}, [null], { x: 1 }),
    wildString(options),
    fc.integer(),
  );
}

const typesOf = (schema: Schema): string[] => {
  const { type } = schema;
  if (Array.isArray(type)) return type.map(String);
  return typeof type === 'string' ? [type] : [];
};

function stringFor(schema: Schema, options: GeneratorOptions): fc.Arbitrary<string> {
  const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : 60;
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  switch (schema.format) {
    case 'uuid':
      return fc.oneof(fc.constantFrom(...options.ids), fc.uuid());
    case 'date-time':
      return fc
        .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
        .map((date) => date.toISOString());
    case 'uri':
      return fc.oneof(
        fc.webUrl(),
        fc.constantFrom('https://hooks.example.com/in', 'https://127.0.0.1/x', 'https://[::1]/'),
      );
    default:
      return fc.oneof(
        { arbitrary: fc.string({ minLength, maxLength: Math.min(maxLength, 60) }), weight: 4 },
        {
          arbitrary: wildString(options).filter(
            (text) => text.length >= minLength && text.length <= maxLength,
          ),
          weight: 1,
        },
      );
  }
}

function objectFor(schema: Schema, options: GeneratorOptions, depth: number): fc.Arbitrary<Schema> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required ?? []) as string[]);
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties)) {
    record[name] = valueFor(property, options, depth + 1);
  }
  const base = fc.record(record, { requiredKeys: [...required].filter((name) => name in record) });
  const alternatives = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  // An object's `anyOf` of alternatives (`required` branches): satisfy one of them, mostly.
  if (!alternatives || alternatives.some((branch) => branch.required === undefined)) return base;
  return fc
    .tuple(base, fc.constantFrom(...alternatives), fc.boolean())
    .chain(([value, branch, satisfy]) => {
      if (!satisfy) return fc.constant(value);
      const names = branch.required as string[];
      return fc
        .tuple(
          ...names.map((name) =>
            valueFor(
              {
                ...(properties[name] ?? {}),
                ...(branch.properties as Record<string, Schema>)?.[name],
              },
              options,
              depth + 1,
            ),
          ),
        )
        .map((values) => ({
          ...value,
          ...Object.fromEntries(names.map((n, i) => [n, values[i]])),
        }));
    });
}

/** A value the schema describes (as far as this generator reads schemas). */
export function valueFor(
  schema: Schema,
  options: GeneratorOptions,
  depth = 0,
): fc.Arbitrary<unknown> {
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  const types = typesOf(schema);
  if (branches && types.length === 0) {
    return fc.oneof(...branches.map((branch) => valueFor(branch, options, depth)));
  }
  if (types.length === 0) return depth > 2 ? fc.constant(null) : wrongValue(options);
  return fc.oneof(
    ...types.map((type): fc.Arbitrary<unknown> => {
      switch (type) {
        case 'string':
          return stringFor(schema, options);
        case 'integer':
          return fc.integer({
            min: typeof schema.minimum === 'number' ? schema.minimum : -1_000,
            max: typeof schema.maximum === 'number' ? schema.maximum : 1_000,
          });
        case 'number':
          return fc.double({ noNaN: true, noDefaultInfinity: true });
        case 'boolean':
          return fc.boolean();
        case 'null':
          return fc.constant(null);
        case 'array': {
          const items = (schema.items ?? {}) as Schema;
          const maxItems = typeof schema.maxItems === 'number' ? schema.maxItems : 4;
          return fc.array(valueFor(items, options, depth + 1), {
            minLength: typeof schema.minItems === 'number' ? schema.minItems : 0,
            maxLength: Math.min(maxItems, depth > 1 ? 1 : 3),
          });
        }
        case 'object':
          return depth > 3 ? fc.constant({}) : objectFor(schema, options, depth);
        default:
          return fc.constant(null);
      }
    }),
  );
}

/**
 * Mostly the schema's value; sometimes the same value broken: a property of the wrong type, an
 * unknown property, a required one missing, or something else entirely.
 */
export function bodyFor(schema: Schema, options: GeneratorOptions): fc.Arbitrary<unknown> {
  const valid = valueFor(schema, options);
  const names = Object.keys((schema.properties ?? {}) as object);
  const broken = fc
    .tuple(
      valid,
      fc.constantFrom('wrong-type', 'extra', 'missing', 'replace'),
      fc.constantFrom(...(names.length > 0 ? names : ['x'])),
      wrongValue(options),
      fc.oneof(fc.constantFrom('__proto__', 'constructor', 'x'), wildString(options)),
    )
    .map(([value, how, name, wrong, extraName]) => {
      if (
        how === 'replace' ||
        value === null ||
        typeof value !== 'object' ||
        Array.isArray(value)
      ) {
        return wrong;
      }
      const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
      if (how === 'wrong-type') copy[name] = wrong;
      else if (how === 'extra') copy[extraName] = wrong;
      else delete copy[name];
      return copy;
    });
  return fc.oneof({ arbitrary: valid, weight: 3 }, { arbitrary: broken, weight: 1 });
}
