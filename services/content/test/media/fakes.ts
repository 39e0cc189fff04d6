import type { InternalClient } from '@church/common';

export interface FakeCall {
  module: string;
  method: string;
  path: string;
  body?: unknown;
}

/**
 * A stand-in for the signed service-to-service client: records every call and answers from `answers`
 * (by `METHOD path` without the query, or by a function of the call).
 */
export function fakeInternal(answers: Record<string, unknown | ((call: FakeCall) => unknown)> = {}) {
  const calls: FakeCall[] = [];
  const request = async <T>(module: string, method: string, path: string, body?: unknown): Promise<T> => {
    const call = { module, method, path, body };
    calls.push(call);
    const answer = answers[`${method} ${path.split('?')[0]}`];
    const value = typeof answer === 'function' ? (answer as (c: FakeCall) => unknown)(call) : answer;
    if (value instanceof Error) throw value;
    return (value ?? {}) as T;
  };
  const client: InternalClient = {
    request: request as InternalClient['request'],
    get: ((module: string, path: string) => request(module, 'GET', path)) as InternalClient['get'],
    post: ((module: string, path: string, body: unknown) => request(module, 'POST', path, body)) as InternalClient['post'],
  };
  return { client, calls, answers };
}
