/**
 * int8 (counts) as numbers on both backends: pg would give a string and PGlite a bigint. The
 * counts this service reads stay far below 2^53.
 */
export const INT8_OID = 20;
export const parseInt8 = (value: string): number => Number(value);
