// `feed` and `marked` ship as ES modules only, while this service is compiled to CommonJS (under Jest too, whose
// transform leaves node_modules alone). A native dynamic import loads them in both; the compilers would rewrite
// a written `import()` into `require()`, which cannot load them, so it is kept out of their sight.
const nativeImport = (specifier: string): Promise<unknown> => eval(`import(${JSON.stringify(specifier)})`);

function once<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => (pending ??= load());
}

export const loadFeed = once(() => nativeImport('feed') as Promise<typeof import('feed')>);
export const loadMarked = once(() => nativeImport('marked') as Promise<typeof import('marked')>);
