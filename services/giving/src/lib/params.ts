/**
 * The name of field `field` of item `i` of a request's body as an error names it: `[i].field` when the body was
 * an array, `field` when it was one object (routes build it from the request; domain code only calls it).
 */
export type ItemParam = (i: number, field: string) => string;
