export * from './permissions';
export * from './token';
export * from './access';
export * from './password';
